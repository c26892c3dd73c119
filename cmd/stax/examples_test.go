package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/pkg/substitute"
)

// Every line of every command's Example is a command that parses: the
// command exists, its flags are its own, its arguments are as many as it
// takes, and --output is a format stax knows.
func TestHelpExamplesParse(t *testing.T) {
	t.Parallel()
	root, _ := newRootCmd(&IOStreams{In: strings.NewReader("")}, environment{}, nil)
	var walk func(*cobra.Command)
	count := 0
	walk = func(c *cobra.Command) {
		for _, line := range strings.Split(c.Example, "\n") {
			for _, args := range exampleCommands(line) {
				count++
				checkExample(t, c.CommandPath(), args)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	if count < 20 {
		t.Errorf("only %d example commands found", count)
	}
}

// exampleCommands are the stax invocations of one example line: the words
// after each "stax", up to a pipe, redirection, comment or the end of a
// command substitution.
func exampleCommands(line string) [][]string {
	var out [][]string
	words := substitute.Split(line) // words as a shell splits them, quotes removed
	for i := 0; i < len(words); i++ {
		w := strings.TrimPrefix(words[i], "$(")
		if j := strings.Index(w, "=$("); j >= 0 {
			w = w[j+3:]
		}
		if w != "stax" {
			continue
		}
		var args []string
		for i++; i < len(words); i++ {
			a := words[i]
			if a == "|" || a == ">" || a == "<" || a == "&&" || a == ";" || strings.HasPrefix(a, "#") {
				break
			}
			end := strings.HasSuffix(a, ")") && !strings.Contains(a, "(")
			args = append(args, strings.TrimSuffix(a, ")"))
			if end {
				break
			}
		}
		out = append(out, args)
	}
	return out
}

func checkExample(t *testing.T, where string, args []string) {
	t.Helper()
	root, _ := newRootCmd(&IOStreams{In: strings.NewReader("")}, environment{}, nil)
	cmd, rest, err := root.Find(args)
	if err != nil {
		t.Errorf("%s example stax %s: %v", where, strings.Join(args, " "), err)
		return
	}
	if err := cmd.ParseFlags(rest); err != nil {
		t.Errorf("%s example stax %s: %v", where, strings.Join(args, " "), err)
		return
	}
	if err := cmd.ValidateArgs(cmd.Flags().Args()); err != nil {
		t.Errorf("%s example stax %s: %v", where, strings.Join(args, " "), err)
	}
	if root.PersistentPreRunE != nil {
		if err := root.PersistentPreRunE(cmd, cmd.Flags().Args()); err != nil {
			t.Errorf("%s example stax %s: %v", where, strings.Join(args, " "), err)
		}
	}
}

// Help says what a rule is; it does not send the user to the
// specification's files by number or section sign.
func TestHelpNamesNoSeedFiles(t *testing.T) {
	t.Parallel()
	root, _ := newRootCmd(&IOStreams{In: strings.NewReader("")}, environment{}, nil)
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		text := c.Short + c.Long + c.Example
		c.Flags().VisitAll(func(f *pflag.Flag) { text += f.Usage })
		if strings.Contains(text, "seed ") || strings.Contains(text, "§") {
			t.Errorf("%s: help names a seed file", c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// Counts read as English: "1 skill", "2 skills".
func TestCountsArePlural(t *testing.T) {
	t.Parallel()
	useHome(t)
	dir := t.TempDir()
	writeSkillFiles(t, filepath.Join(dir, "skills"), map[string]string{"one/SKILL.md": skillMD("one", "One.")})
	filetest.WriteFile(t, filepath.Join(dir, "stax.yaml"), "name: one\nversion: 1.0.0\n")
	r := runStax(t, "validate", dir)
	if !strings.Contains(r.Stdout, "1 skill valid") {
		t.Errorf("validate: %q", r.Stdout)
	}
	r = runStax(t, "pack", dir)
	if r.Code != 0 || !strings.Contains(r.Stderr, "(1 skill)") {
		t.Errorf("pack: %d %q", r.Code, r.Stderr)
	}
}
