// Package yamlerr says what is wrong in a YAML file a user wrote, in the
// user's terms: the line at fault, the key, the kind of value wanted,
// and for a mistyped key the key meant, never a Go type. Every reader of
// a YAML file (stax.yaml, $STAX_HOME/config.yaml, the trust policy,
// stax.lock, the frontmatter of a SKILL.md) passes yaml's errors through
// Translate.
package yamlerr

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/stax-dev/stax/internal/editdistance"
	"github.com/stax-dev/stax/pkg/termtext"
)

// Error is a problem of a YAML document at a line.
type Error struct {
	// File is the file the document is, as the user named it; empty
	// when the message names it otherwise (a SKILL.md's frontmatter).
	File string
	// Line is 1-based in the document; 0 when it is not known.
	Line int
	// Message says what is wrong and, where it can, the fix.
	Message string

	// key and known are those of an UnknownKey error, which Translate
	// completes with where the key is.
	key   string
	known []string
	// err is the error of an At, which Unwrap gives.
	err error
}

// At is err, which an UnmarshalYAML method found on line: Translate
// keeps it as the file's error at that line, as it does yaml's own.
func At(line int, err error) *Error {
	return &Error{Line: line, Message: err.Error(), err: err}
}

// Unwrap is the error At was given.
func (e *Error) Unwrap() error { return e.err }

func (e *Error) Error() string {
	msg := e.Message
	if e.Line > 0 {
		msg = fmt.Sprintf("line %d: %s", e.Line, msg)
	}
	if e.File != "" {
		msg = e.File + ": " + msg
	}
	return msg
}

// In is err, an error of the file path, naming it: an *Error from
// Translate with its File set, any other error prefixed with path.
func In(path string, err error) error {
	if e, ok := err.(*Error); ok {
		named := *e
		named.File = path
		return &named
	}
	return fmt.Errorf("%s: %w", path, err)
}

// Translate turns err, an error of decoding data into v, into an *Error.
// v is what was decoded into (nil for a yaml.Node): the keys of its
// struct types are those a mistyped key is compared with. An *Error in
// err, made by an UnmarshalYAML method, is returned as it is, and an
// error that is not yaml's unchanged.
func Translate(err error, data []byte, v any) error {
	e, ok := translate(err, data, v)
	if !ok {
		return err
	}
	// Messages hold keys and values of the file, which is from outside:
	// key paths and hints as they are written there.
	e.Message = termtext.Escape(e.Message)
	return e
}

func translate(err error, data []byte, v any) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		if e.key != "" {
			return unknownKey(e.Line, e.key, keyPath(parse(data), e.Line, e.key), e.known), true
		}
		return e, true
	}
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		return typeError(te.Errors, data, v), true
	}
	msg, ok := strings.CutPrefix(err.Error(), "yaml: ")
	if !ok {
		return nil, false
	}
	return syntaxError(msg, data), true
}

// UnknownKey is the error of an UnmarshalYAML method that finds key, on
// line, in a mapping whose keys are known: Translate says where it is,
// and offers the known key nearest to it.
func UnknownKey(line int, key string, known []string) *Error {
	e := unknownKey(line, key, "", known)
	e.key, e.known = key, known
	return e
}

// unknownKey is the error of key on line in the mapping where ("" for
// the top level) whose keys are known.
func unknownKey(line int, key, where string, known []string) *Error {
	msg := fmt.Sprintf("unknown key %q", key)
	if where != "" {
		msg += " in " + where
	}
	if near := editdistance.Closest(key, known); near != "" {
		msg += fmt.Sprintf(": did you mean %s?", near)
	}
	if len(known) > 0 {
		msg += fmt.Sprintf(" (the keys here are %s)", strings.Join(known, ", "))
	}
	return &Error{Line: line, Message: msg}
}

var (
	lineRE      = regexp.MustCompile(`^line (\d+): (.*)$`)
	unmarshalRE = regexp.MustCompile("^cannot unmarshal (!!\\w+)(?: `(.*)`)? into (.+)$")
	notFoundRE  = regexp.MustCompile(`^field (.+) not found in type (.+)$`)
	alreadyRE   = regexp.MustCompile(`^field (.+) already set in type .+$`)
	definedRE   = regexp.MustCompile(`^mapping key (".*") already defined at line (\d+)$`)
)

// typeError translates the first of the problems of a yaml.TypeError:
// the one a user fixes first.
func typeError(problems []string, data []byte, v any) *Error {
	m := lineRE.FindStringSubmatch(problems[0])
	if m == nil {
		return &Error{Message: problems[0]}
	}
	line, _ := strconv.Atoi(m[1])
	e := describeProblem(line, m[2], data, v)
	if more := len(problems) - 1; more > 0 {
		e.Message += fmt.Sprintf(" (and %d more %s)", more, plural(more, "problem", "problems"))
	}
	return e
}

func describeProblem(line int, problem string, data []byte, v any) *Error {
	doc := parse(data)
	if m := unmarshalRE.FindStringSubmatch(problem); m != nil {
		return wrongKind(line, m[1], m[2], m[3], doc, v)
	}
	if m := notFoundRE.FindStringSubmatch(problem); m != nil {
		return unknownKey(line, m[1], keyPath(doc, line, m[1]), knownKeys(v, m[2]))
	}
	if m := alreadyRE.FindStringSubmatch(problem); m != nil {
		return &Error{Line: line, Message: fmt.Sprintf("key %q is given twice: keep one", m[1])}
	}
	if m := definedRE.FindStringSubmatch(problem); m != nil {
		key, err := strconv.Unquote(m[1])
		if err != nil {
			key = m[1]
		}
		return &Error{Line: line, Message: fmt.Sprintf("key %q is already on line %s: keep one", key, m[2])}
	}
	return &Error{Line: line, Message: problem}
}

// keyPath names the mapping that holds key on line.
func keyPath(doc *yaml.Node, line int, key string) string {
	return describe(find(doc, line, func(n *yaml.Node, isKey bool) bool { return isKey && n.Value == key }))
}

// wrongKind says which key holds a value of the wrong kind, what it
// should be and what it is. yaml names the value by its tag and its
// first characters only: the node found at its line gives the rest.
func wrongKind(line int, tag, shown, goType string, doc *yaml.Node, v any) *Error {
	var found *yaml.Node
	path := find(doc, line, func(n *yaml.Node, isKey bool) bool {
		if isKey || n.ShortTag() != tag || !sameValue(n.Value, shown) {
			return false
		}
		found = n
		return true
	})
	want := kindOf(goType, v)
	what := describe(path)
	if what == "" {
		what = "the document"
	}
	msg := fmt.Sprintf("%s must be %s", what, want)
	if found == nil {
		return &Error{Line: line, Message: fmt.Sprintf("%s, not %s", msg, tagKind(tag, shown))}
	}
	msg = fmt.Sprintf("%s, not %s", msg, tagKind(tag, found.Value))
	if want == "a list" && found.Kind == yaml.ScalarNode && found.Value != "" {
		msg += fmt.Sprintf(": write [%s], or each item on a line of its own after \"- \"", found.Value)
	}
	return &Error{Line: line, Message: msg}
}

// sameValue reports whether a scalar's value is the one yaml showed:
// itself, or its first 7 bytes and "..." when it is longer than 10.
func sameValue(value, shown string) bool {
	if prefix, cut := strings.CutSuffix(shown, "..."); cut && len(value) > 10 {
		return strings.HasPrefix(value, prefix)
	}
	return value == shown
}

// tagKind names a value of a YAML tag.
func tagKind(tag, value string) string {
	switch tag {
	case "!!seq":
		return "a list"
	case "!!map":
		return "a mapping"
	case "!!null":
		return "empty"
	case "!!str":
		return fmt.Sprintf("the string %q", value)
	case "!!int", "!!float", "!!bool":
		// What resolves to these tags is plain letters, digits and
		// signs: nothing to escape.
		return value
	}
	return fmt.Sprintf("%q", value)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
