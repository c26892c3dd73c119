package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// Every line of every command's Example is a command that parses: the
// command exists, its flags are its own, its arguments are as many as it
// takes, and --output is a format stax knows.
func TestHelpExamplesParse(t *testing.T) {
	root, _ := newRootCmd(&IOStreams{In: strings.NewReader("")})
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
	words := shellWords(line)
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

// shellWords splits line as a shell does for the examples' needs: blanks
// separate words, and quotes group them.
func shellWords(line string) []string {
	var words []string
	var word strings.Builder
	in, quote := false, rune(0)
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			word.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t':
			if in {
				words = append(words, word.String())
				word.Reset()
				in = false
			}
		default:
			word.WriteRune(r)
			in = true
		}
	}
	if in {
		words = append(words, word.String())
	}
	return words
}

func checkExample(t *testing.T, where string, args []string) {
	t.Helper()
	root, _ := newRootCmd(&IOStreams{In: strings.NewReader("")})
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
