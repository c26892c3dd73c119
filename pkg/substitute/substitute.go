// Package substitute replaces the variables of the stax skills
// specification (docs/stateful-skills.md, "Variables") in skill text:
//
//	$ARGUMENTS          the full argument string
//	$ARGUMENTS[N]       positional argument N, zero-based; missing → ""
//	${STAX_SKILL_DIR}   path of the materialized skill directory (relative
//	                    to the project in a project-scope install)
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
	"fmt"
	"strconv"
	"strings"
)

// The variables of the stax specification.
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
	expand(text, opts, &joiner{args: opts.Arguments}, func(s string) bool {
		b.WriteString(s)
		return true
	})
	return b.String()
}

// UsesPaths reports whether text holds ${STAX_SKILL_DIR} or
// ${STAX_WORKSPACE} unescaped: whether what Apply makes of it depends on
// where the skill is.
func UsesPaths(text string) bool {
	for i := 0; i < len(text); {
		j := strings.IndexAny(text[i:], `\$`)
		if j < 0 {
			return false
		}
		i += j
		if text[i] == '\\' {
			// An escaped variable is text; a lone backslash is skipped.
			_, n := match(text[i+1:])
			i += 1 + n
			continue
		}
		v, n := match(text[i:])
		if n > 0 && !v.arguments {
			return true
		}
		i += max(n, 1)
	}
	return false
}

// SizeError is ApplyLimit's refusal of a text that would pass its limit.
type SizeError struct {
	// Limit is the most bytes the result may hold.
	Limit int64
}

func (e *SizeError) Error() string {
	return fmt.Sprintf("the text would exceed %d bytes once its variables are substituted", e.Limit)
}

// ApplyLimit is Apply for a result of at most limit bytes. It first
// measures the result without building it, so that a text repeating
// $ARGUMENTS, with long arguments, is refused with a *SizeError at the
// cost of a scan rather than of the memory it asks for.
func ApplyLimit(text string, opts Options, limit int64) (string, error) {
	if !strings.Contains(text, "$") {
		// Nothing to substitute: the text is its own result.
		if int64(len(text)) > limit {
			return "", &SizeError{Limit: limit}
		}
		return text, nil
	}
	// Every piece is at most a string long and the sum stops once past
	// limit, so it cannot overflow.
	joined := &joiner{args: opts.Arguments}
	var size int64
	expand(text, opts, joined, func(s string) bool {
		size += int64(len(s))
		return size <= limit
	})
	if size > limit {
		return "", &SizeError{Limit: limit}
	}
	var b strings.Builder
	b.Grow(int(size))
	expand(text, opts, joined, func(s string) bool {
		b.WriteString(s)
		return true
	})
	return b.String(), nil
}

// expand passes the pieces of the substituted text to emit, in order,
// while emit returns true.
func expand(text string, opts Options, joined *joiner, emit func(string) bool) {
	for i := 0; i < len(text); {
		c := text[i]
		if c != '\\' && c != '$' {
			// Copy up to the next byte that may start a variable or escape.
			j := strings.IndexAny(text[i:], `\$`)
			if j < 0 {
				emit(text[i:])
				return
			}
			if !emit(text[i : i+j]) {
				return
			}
			i += j
			continue
		}
		var piece string
		if c == '\\' {
			v, n := match(text[i+1:])
			switch {
			case n == 0:
				piece = `\`
				i++
			case v.arguments && opts.KeepArguments:
				// Left for the runtime, escape included.
				piece = text[i : i+1+n]
				i += 1 + n
			default:
				piece = text[i+1 : i+1+n]
				i += 1 + n
			}
		} else if v, n := match(text[i:]); n == 0 {
			piece = "$"
			i++
		} else {
			piece = v.value(text[i:i+n], joined, opts)
			i += n
		}
		if !emit(piece) {
			return
		}
	}
}

// joiner is $ARGUMENTS, the arguments joined with single spaces, built on
// first use: a text that never uses it, or is refused before, never pays
// for it.
type joiner struct {
	args   []string
	joined *string
}

func (j *joiner) String() string {
	if j.joined == nil {
		s := strings.Join(j.args, " ")
		j.joined = &s
	}
	return *j.joined
}

// variable is one recognised variable reference.
type variable struct {
	arguments bool
	// index is the position of $ARGUMENTS[N], or -1 for $ARGUMENTS; an
	// index too large for an int is -2, which no argument has.
	index    int
	skillDir bool
}

func (v variable) value(written string, joined *joiner, opts Options) string {
	switch {
	case v.arguments && opts.KeepArguments:
		return written
	case v.arguments && v.index == -1:
		return joined.String()
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
