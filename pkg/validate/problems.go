package validate

import "github.com/stax-dev/stax/layers"

// problems reports every path the scan found that cannot be packaged. The
// kind is the code: it already is a stable kebab-case name.
func (v *validator) problems(ps []layers.Problem) {
	for _, p := range ps {
		msg := problemFix(p.Kind)
		if p.Detail != "" {
			msg = p.Detail + "; " + msg
		}
		v.errorf(p.Path, 0, string(p.Kind), "%s", msg)
	}
}

// problemFix says how to fix a problem of the given kind.
func problemFix(kind layers.ProblemKind) string {
	switch kind {
	case layers.ProblemSymlink:
		return "symbolic links are not packaged: replace it with a copy of its target, " +
			"or pass --symlink-mode flatten to package what it points to"
	case layers.ProblemDanglingSymlink:
		return "fix the link's target, or remove the link"
	case layers.ProblemSymlinkEscape:
		return "a package holds only its own files: copy the target into the package, or remove the link"
	case layers.ProblemSymlinkCycle:
		return "remove the link that closes the loop"
	case layers.ProblemHardlink:
		return "hard links are not packaged: make this file an independent copy, or remove its other links"
	case layers.ProblemDevice, layers.ProblemFIFO, layers.ProblemSocket, layers.ProblemIrregular:
		return "only regular files and directories are packaged: remove it, or add it to " + layers.IgnoreFile
	case layers.ProblemUnsafeName:
		return "rename it: the layer reader refuses such paths"
	case layers.ProblemUnreadable:
		return "fix its permissions, or add it to " + layers.IgnoreFile
	}
	return "it cannot be packaged: remove it, or add it to " + layers.IgnoreFile
}
