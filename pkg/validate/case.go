package validate

import (
	"path"
	"strings"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/stateful"
)

// CodeCaseCollision: two paths of the tree differ only in letter case.
const CodeCaseCollision = "case-collision"

// caseCollisions warns about sibling paths that the case-insensitive file
// systems of macOS and Windows would make one. entries are one part of
// the tree: the paths below its top-level entry are compared among
// themselves, and the top-level paths with those of the parts before.
func (v *validator) caseCollisions(entries []layers.Entry) {
	paths := make([]string, len(entries))
	var pairs [][2]string
	for i, e := range entries {
		paths[i] = e.Path
		if strings.Contains(e.Path, "/") {
			continue
		}
		key := strings.ToLower(e.Path)
		if prev, ok := v.tops[key]; ok && prev != e.Path {
			pairs = append(pairs, [2]string{prev, e.Path})
		} else if !ok {
			v.tops[key] = e.Path
		}
	}
	for _, c := range append(pairs, layers.CaseCollisions(paths)...) {
		if _, ok := stateful.CaseVariant(path.Base(c[1])); ok {
			continue // sibling-case says more about memory.md beside MEMORY.md
		}
		v.warnf(c[1], 0, CodeCaseCollision,
			"%s and %s differ only in letter case: on macOS and Windows they are one path and one would overwrite the other; rename one", c[0], c[1])
	}
}
