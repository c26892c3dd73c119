package main

import (
	"errors"
	"fmt"
	"io"
	"os"

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
DIR must not exist or be empty: regenerate into a fresh directory, so no
file of yours is ever overwritten. Man pages are dated SOURCE_DATE_EPOCH
when it is set, so a release build writes the same bytes every time.`,
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
	if err := checkEmptyOrAbsent(opts.Dir); err != nil {
		return errdefs.IO(err)
	}
	// Written beside DIR and moved in whole, so a failure leaves DIR as it
	// was; what a killed run staged there the next one removes.
	err = scratch.Stage(opts.Dir, docsStagingPrefix, func(staging string) error {
		return errdefs.IO(generate(staging))
	})
	if err != nil {
		return err
	}
	entries, err := os.ReadDir(opts.Dir)
	if err != nil {
		return errdefs.IO(err)
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

// checkEmptyOrAbsent refuses a dir that holds anything.
func checkEmptyOrAbsent(dir string) error {
	f, err := os.Open(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.Readdirnames(1); err == io.EOF {
		return nil
	} else if err != nil {
		return fmt.Errorf("%s is not a directory: %w", dir, err)
	}
	return fmt.Errorf("%s is not empty: write the pages into a new directory (remove the old pages first to regenerate them)", dir)
}
