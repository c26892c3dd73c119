package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func readREADME(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// visibleCommands walks the command tree as --help shows it: every
// command a user can run, help excluded.
func visibleCommands(c *cobra.Command, visit func(*cobra.Command)) {
	for _, sub := range c.Commands() {
		if !sub.IsAvailableCommand() || sub.Name() == "help" {
			continue
		}
		visit(sub)
		visibleCommands(sub, visit)
	}
}

// TestREADMECommandReference checks the README's command reference against
// the commands and flags --help shows, so neither can change without the
// other: every command has a `stax NAME …` entry, and every flag of every
// command is written --flag somewhere in the README. It checks names, not
// wording, so rephrasing either side never breaks it.
func TestREADMECommandReference(t *testing.T) {
	t.Parallel()
	readme := readREADME(t)
	root, _ := newRootCmd(&IOStreams{In: strings.NewReader(""), Out: &strings.Builder{}, ErrOut: &strings.Builder{}}, nil)
	var missing []string
	check := func(f *pflag.Flag, where string) {
		if f.Hidden || f.Name == "help" {
			return
		}
		if !regexp.MustCompile(`(^|[^a-z0-9-])--` + regexp.QuoteMeta(f.Name) + `([^a-z0-9-]|$)`).MatchString(readme) {
			missing = append(missing, "flag --"+f.Name+" of "+where+" (write it as `--"+f.Name+"` in its section)")
		}
	}
	root.PersistentFlags().VisitAll(func(f *pflag.Flag) { check(f, "every command") })
	visibleCommands(root, func(c *cobra.Command) {
		path := c.CommandPath()
		if !strings.Contains(readme, "`"+path+" ") && !strings.Contains(readme, "`"+path+"`") {
			missing = append(missing, "command "+path+" (give it a ### `"+c.UseLine()+"` section under ## Commands)")
		}
		c.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) { check(f, path) })
	})
	if len(missing) > 0 {
		t.Errorf("README.md does not document what `stax --help` shows; add:\n  %s", strings.Join(missing, "\n  "))
	}
}

func TestDocsMarkdownAndMan(t *testing.T) {
	t.Parallel()
	useHome(t)
	setenv(t, "SOURCE_DATE_EPOCH", "1700000000")
	base := t.TempDir()
	for _, format := range []string{"markdown", "man"} {
		dir := filepath.Join(base, format)
		r := runStax(t, "docs", format, dir)
		if r.Code != 0 {
			t.Fatalf("docs %s: exit %d: %s", format, r.Code, r.Stderr)
		}
		name := map[string]string{"markdown": "stax_push.md", "man": "stax-push.1"}[format]
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("docs %s wrote no page for push: %v", format, err)
		}
		if !strings.Contains(string(data), "--plain-http") {
			t.Errorf("%s does not document --plain-http:\n%s", name, data)
		}
		if strings.Contains(string(data), "Auto generated") {
			t.Errorf("%s carries a generation date, so it is not reproducible", name)
		}
		// A second run into the same directory refuses, leaving it as it was.
		r = runStax(t, "docs", format, dir)
		if r.Code != 2 || !strings.Contains(r.Stderr, "not empty") {
			t.Errorf("docs into a non-empty dir: exit %d, %s", r.Code, r.Stderr)
		}
		if again, _ := os.ReadFile(filepath.Join(dir, name)); string(again) != string(data) {
			t.Errorf("a refused run changed %s", name)
		}
	}
	if entries, _ := os.ReadDir(base); len(entries) != 2 {
		t.Errorf("staging left behind: %v", entries)
	}
	if r := runStax(t, "docs", "html", filepath.Join(base, "x")); r.Code != 1 {
		t.Errorf("docs html: exit %d", r.Code)
	}
}
