package yamlerr

import (
	"bytes"
	"errors"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// syntaxError is the error of data, which does not parse, with msg,
// yaml's message without its "yaml: " prefix.
//
// The line yaml gives is not the line at fault: for a parser error
// (such as "did not find expected key", which a bad indentation gives)
// it is the 0-based line where the enclosing block starts, so a mapping
// under a comment on line 1 is reported at "line 1" whatever line broke
// it; a reader error has no line at all. The line at fault is the first
// where the document, cut after it, fails with the same problem: yaml
// reads a document from its start, so what parses up to a line cannot be
// the cause.
func syntaxError(msg string, data []byte) *Error {
	problem := msg
	reported := 0
	if m := lineRE.FindStringSubmatch(msg); m != nil {
		problem = m[2]
		reported, _ = strconv.Atoi(m[1])
	}
	line := faultLine(problem, data)
	if line == 0 && strings.HasPrefix(problem, mergeProblem) {
		// Decoding found it, not parsing: the tree says where.
		line = badMergeLine(parse(data))
	}
	if line == 0 {
		line = reported
	}
	for _, h := range hints {
		if strings.HasPrefix(problem, h.problem) {
			problem += " (" + h.hint + ")"
			break
		}
	}
	return &Error{Line: line, Message: problem}
}

// faultLine is the first line after which data, cut there, fails to parse
// with problem; 0 when data itself does not. A document cut after a
// line before the fault parses, except inside a flow collection or a
// quoted string spread over lines, whose first line is then as good a
// line to show: so the cuts that fail are those from the line at fault
// on, which a binary search finds in a few parses.
func faultLine(problem string, data []byte) int {
	lines := bytes.SplitAfter(data, []byte("\n"))
	ends := make([]int, len(lines)) // the offset after each line
	off := 0
	for i, l := range lines {
		off += len(l)
		ends[i] = off
	}
	fails := func(n int) bool {
		var doc yaml.Node
		err := yaml.Unmarshal(data[:ends[n-1]], &doc)
		var te *yaml.TypeError
		if err == nil || errors.As(err, &te) {
			return false
		}
		got := strings.TrimPrefix(err.Error(), "yaml: ")
		if m := lineRE.FindStringSubmatch(got); m != nil {
			got = m[2]
		}
		return got == problem
	}
	if len(lines) == 0 || !fails(len(lines)) {
		return 0
	}
	lo, hi := 1, len(lines)
	for lo < hi {
		mid := (lo + hi) / 2
		if fails(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// hints are what usually causes a problem, by the start of its message.
var hints = []struct{ problem, hint string }{
	{"did not find expected key", `check the indentation of this line against the keys above it; a value that contains ": " or " #", or starts with one of [ { * & ! | > % @ or a backquote, must be quoted`},
	{"did not find expected '-' indicator", "check the indentation of this line against the items of the list above it"},
	{"mapping values are not allowed in this context", `a value that contains ": " or " #", or starts with one of [ { * & ! | > % @ or a backquote, must be quoted; or this line is indented more than the key above it`},
	{"found character that cannot start any token", `indent with spaces, not tabs; a value that contains ": " or " #", or starts with one of [ { * & ! | > % @ or a backquote, must be quoted`},
	{"found a tab character", "indent with spaces, not tabs"},
	{mergeProblem, "after <<, write a mapping, an alias of one (*name), or a list of them"},
}

// mergeProblem is yaml's message for a merge key (<<) whose value is not
// a mapping or a list of mappings, which it gives without a line.
const mergeProblem = "map merge requires map or sequence of maps as the value"
