package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
	"github.com/stax-dev/stax/pkg/errdefs"
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
	var generate func(staging string) error
	switch opts.Format {
	case docsMan:
		generate = func(staging string) error {
			return doc.GenManTree(opts.Root, &doc.GenManHeader{Title: "STAX", Section: "1", Source: "stax " + buildVersion()}, staging)
		}
	case docsMarkdown:
		generate = func(staging string) error { return doc.GenMarkdownTree(opts.Root, staging) }
	default:
		return errdefs.Invalid(usageError{fmt.Errorf("unknown docs format %q: use %q or %q", opts.Format, docsMan, docsMarkdown)})
	}
	// No generation date in the pages: the same stax writes the same bytes.
	opts.Root.DisableAutoGenTag = true

	if err := checkEmptyOrAbsent(opts.Dir); err != nil {
		return errdefs.IO(err)
	}
	// Written beside DIR and moved in whole, so a failure leaves DIR as it was.
	parent := filepath.Dir(filepath.Clean(opts.Dir))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return errdefs.IO(err)
	}
	staging, err := os.MkdirTemp(parent, ".stax-docs-*")
	if err != nil {
		return errdefs.IO(err)
	}
	defer os.RemoveAll(staging)
	if err := generate(staging); err != nil {
		return errdefs.IO(fmt.Errorf("generate %s pages: %w", opts.Format, err))
	}
	if err := os.Chmod(staging, 0o755); err != nil {
		return errdefs.IO(err)
	}
	// An empty DIR is replaced: rename cannot move onto a directory with files,
	// and an empty one holds nothing to lose.
	if err := os.Remove(opts.Dir); err != nil && !errors.Is(err, os.ErrNotExist) {
		return errdefs.IO(err)
	}
	if err := os.Rename(staging, opts.Dir); err != nil {
		return errdefs.IO(err)
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
