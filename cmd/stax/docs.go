package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/scratch"
)

// Formats of stax docs.
const (
	docsMan      = "man"
	docsMarkdown = "markdown"
)

type docsOptions struct {
	IO     *IOStreams
	Global *globalOptions
	Format string
	Dir    string
	// Root is the command tree to document.
	Root *cobra.Command
}

func newDocsCmd(f *factory, runF func(*docsOptions) error) *cobra.Command {
	opts := &docsOptions{IO: f.IO, Global: f.Global}
	cmd := &cobra.Command{
		Use:   "docs man|markdown DIR",
		Short: "Write the command reference as man pages or Markdown",
		Long: `Write one man page (section 1) or one Markdown file per command into DIR.
DIR must not exist, be empty, or hold only pages of that format that stax
docs wrote, which are replaced whole (the pages of commands that are gone
go too): no file of yours is ever overwritten. Man pages are dated
SOURCE_DATE_EPOCH when it is set, so a release build writes the same bytes
every time.`,
		Example:   "  stax docs man ./man\n  stax docs markdown ./docs/cli",
		Args:      cobra.ExactArgs(2),
		ValidArgs: []string{docsMan, docsMarkdown},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Format, opts.Dir, opts.Root = args[0], args[1], cmd.Root()
			if runF != nil {
				return runF(opts)
			}
			return runDocs(opts)
		},
	}
	return cmd
}

func runDocs(opts *docsOptions) error {
	generate, err := docsGenerator(opts.Format, opts.Root)
	if err != nil {
		return err
	}
	pages, err := onlyPages(opts.Dir, opts.Format)
	if err != nil {
		return errdefs.MarkLocal(err)
	}
	// Written beside DIR and moved in whole, so a failure leaves DIR as it
	// was; what a killed run staged there the next one removes.
	stage := scratch.Stage
	if pages {
		stage = scratch.Replace
	}
	err = stage(opts.Dir, docsStagingPrefix, func(staging string) error {
		return errdefs.MarkLocal(generate(staging))
	})
	if err != nil {
		return err
	}
	entries, err := os.ReadDir(opts.Dir)
	if err != nil {
		return errdefs.MarkLocal(err)
	}
	if opts.Global.json() {
		files := make([]string, len(entries))
		for i, e := range entries {
			files[i] = e.Name()
		}
		return writeJSON(opts.IO.Out, map[string]any{"dir": opts.Dir, "format": opts.Format, "files": files})
	}
	_, err = fmt.Fprintf(opts.IO.Out, "wrote %d %s pages to %s\n", len(entries), opts.Format, opts.Dir)
	return err
}

// docsStagingPrefix names the directory the pages are staged in beside
// DIR; older stax staged them under the same name, so what they left is
// removed too.
const docsStagingPrefix = ".stax-docs-"

// docsGenerator is the function that writes the pages of root in format
// into a directory.
func docsGenerator(format string, root *cobra.Command) (func(dir string) error, error) {
	// No generation date in the pages: the same stax writes the same bytes.
	root.DisableAutoGenTag = true
	var generate func(dir string) error
	switch format {
	case docsMan:
		generate = func(dir string) error {
			return doc.GenManTree(root, &doc.GenManHeader{Title: "STAX", Section: "1", Source: "stax " + buildVersion()}, dir)
		}
	case docsMarkdown:
		generate = func(dir string) error { return doc.GenMarkdownTree(root, dir) }
	default:
		return nil, errdefs.Invalid(usageError{fmt.Errorf("unknown docs format %q: use %q or %q", format, docsMan, docsMarkdown)})
	}
	return func(dir string) error {
		if err := generate(dir); err != nil {
			return fmt.Errorf("generate %s pages: %w", format, err)
		}
		return nil
	}, nil
}

// pageFormats tell the pages stax docs writes in each format: by their
// names and how they start.
var pageFormats = map[string]struct {
	name  *regexp.Regexp
	start string
}{
	docsMarkdown: {regexp.MustCompile(`^stax(_[a-z0-9_-]+)?\.md$`), "## stax"},
	docsMan:      {regexp.MustCompile(`^stax(-[a-z0-9-]+)?\.1$`), ".nh\n.TH \"STAX\""},
}

// onlyPages reports whether dir holds files, all of them pages of format
// that stax docs wrote; it is false for a dir that does not exist or is
// empty, and an error for one that holds anything else.
func onlyPages(dir, format string) (bool, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("%s: %w", dir, err)
	}
	page := pageFormats[format]
	for _, e := range entries {
		if !e.Type().IsRegular() || !page.name.MatchString(e.Name()) || !startsWith(filepath.Join(dir, e.Name()), page.start) {
			return false, fmt.Errorf("%s is not empty and holds %q, which is not a %s page stax docs wrote: write the pages into a new directory, or one that holds only such pages", dir, e.Name(), format)
		}
	}
	return len(entries) > 0, nil
}

// startsWith reports whether the file at path starts with prefix.
func startsWith(path, prefix string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, len(prefix))
	_, err = io.ReadFull(f, buf)
	return err == nil && string(buf) == prefix
}
