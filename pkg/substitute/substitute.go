// Package substitute replaces the variables of the stax skills
// specification (seed 002) in skill text:
//
//	$ARGUMENTS          the full argument string
//	$ARGUMENTS[N]       positional argument N, zero-based; missing → ""
//	${STAX_SKILL_DIR}   absolute path of the materialized skill directory
//	${STAX_WORKSPACE}   the workspace root, if known
//
// Substitution is textual only: nothing is evaluated, and a substituted
// value is never scanned again, so an argument that itself contains
// "$ARGUMENTS" reaches the agent as written.
//
// A backslash right before a variable escapes it: \$ARGUMENTS,
// \$ARGUMENTS[N], \${STAX_SKILL_DIR} and \${STAX_WORKSPACE} produce the
// variable's text without the backslash. A backslash anywhere else is
// ordinary text and is kept: "\\$ARGUMENTS" is a backslash followed by the
// escaped variable, and gives "\$ARGUMENTS".
//
// $ARGUMENTS is a variable only when the next character cannot continue a
// name: "$ARGUMENTSX" and "$ARGUMENTS_FILE" stay as written, since they
// are most likely shell variables in a code sample. "$ARGUMENTS[" not
// followed by digits and "]" is $ARGUMENTS followed by text.
package substitute

import (
	"strconv"
	"strings"
)

// The variables of seed 002.
const (
	Arguments = "$ARGUMENTS"
	SkillDir  = "${STAX_SKILL_DIR}"
	Workspace = "${STAX_WORKSPACE}"
)

// Options are the values to substitute.
type Options struct {
	// Arguments are the positional arguments; $ARGUMENTS is them joined
	// with single spaces.
	Arguments []string
	// SkillDir and Workspace replace their variables. Empty means not
	// known: the variable is left as written (its escape is still
	// resolved), rather than replaced with a path that would mislead.
	SkillDir  string
	Workspace string
	// KeepArguments leaves every $ARGUMENTS form and its escape exactly as
	// written. An installer sets it: it knows the paths when it writes a
	// skill into a runtime's folder, but the arguments only exist when the
	// runtime invokes the skill, and the runtime resolves them then.
	KeepArguments bool
}

// Apply returns text with the variables of opts substituted.
func Apply(text string, opts Options) string {
	if !strings.Contains(text, "$") {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	joined := strings.Join(opts.Arguments, " ")
	for i := 0; i < len(text); {
		c := text[i]
		if c != '\\' && c != '$' {
			// Copy up to the next byte that may start a variable or escape.
			j := strings.IndexAny(text[i:], `\$`)
			if j < 0 {
				b.WriteString(text[i:])
				break
			}
			b.WriteString(text[i : i+j])
			i += j
			continue
		}
		if c == '\\' {
			v, n := match(text[i+1:])
			switch {
			case n == 0:
				b.WriteByte('\\')
				i++
			case v.arguments && opts.KeepArguments:
				// Left for the runtime, escape included.
				b.WriteString(text[i : i+1+n])
				i += 1 + n
			default:
				b.WriteString(text[i+1 : i+1+n])
				i += 1 + n
			}
			continue
		}
		v, n := match(text[i:])
		if n == 0 {
			b.WriteByte('$')
			i++
			continue
		}
		b.WriteString(v.value(text[i:i+n], joined, opts))
		i += n
	}
	return b.String()
}

// variable is one recognised variable reference.
type variable struct {
	arguments bool
	// index is the position of $ARGUMENTS[N], or -1 for $ARGUMENTS; an
	// index too large for an int is -2, which no argument has.
	index    int
	skillDir bool
}

func (v variable) value(written, joined string, opts Options) string {
	switch {
	case v.arguments && opts.KeepArguments:
		return written
	case v.arguments && v.index == -1:
		return joined
	case v.arguments:
		if v.index >= 0 && v.index < len(opts.Arguments) {
			return opts.Arguments[v.index]
		}
		return ""
	case v.skillDir:
		if opts.SkillDir == "" {
			return written
		}
		return opts.SkillDir
	default:
		if opts.Workspace == "" {
			return written
		}
		return opts.Workspace
	}
}

// match reports the variable s starts with and its length in bytes, or a
// length of 0 when s does not start with one.
func match(s string) (variable, int) {
	switch {
	case strings.HasPrefix(s, SkillDir):
		return variable{skillDir: true}, len(SkillDir)
	case strings.HasPrefix(s, Workspace):
		return variable{}, len(Workspace)
	case !strings.HasPrefix(s, Arguments):
		return variable{}, 0
	}
	n := len(Arguments)
	rest := s[n:]
	if rest != "" && isNameByte(rest[0]) {
		return variable{}, 0
	}
	if idx, m := position(rest); m > 0 {
		return variable{arguments: true, index: idx}, n + m
	}
	return variable{arguments: true, index: -1}, n
}

// position reads "[N]" at the start of s: the index and the length read,
// or a length of 0.
func position(s string) (int, int) {
	if !strings.HasPrefix(s, "[") {
		return 0, 0
	}
	end := 1
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	if end == 1 || end >= len(s) || s[end] != ']' {
		return 0, 0
	}
	idx, err := strconv.Atoi(s[1:end])
	if err != nil {
		idx = -2 // out of range: resolves to the empty string
	}
	return idx, end + 1
}

func isNameByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
