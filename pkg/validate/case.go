package validate

import (
	"path"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/stateful"
)

// CodeCaseCollision: two paths of the tree differ only in letter case.
const CodeCaseCollision = "case-collision"

// caseCollisions warns about sibling paths that the case-insensitive file
// systems of macOS and Windows would make one.
func (v *validator) caseCollisions(entries []layers.Entry) {
	paths := make([]string, len(entries))
	for i, e := range entries {
		paths[i] = e.Path
	}
	for _, c := range layers.CaseCollisions(paths) {
		if _, ok := stateful.CaseVariant(path.Base(c[1])); ok {
			continue // sibling-case says more about memory.md beside MEMORY.md
		}
		v.warnf(c[1], 0, CodeCaseCollision,
			"%s and %s differ only in letter case: on macOS and Windows they are one path and one would overwrite the other; rename one", c[0], c[1])
	}
}
