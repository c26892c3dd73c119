package layers

import (
	"crypto/sha256"
	"fmt"
	"slices"
	"strings"

	"github.com/opencontainers/go-digest"
)

// TreeDigest is the digest of a set of files, with paths relative to the
// root of that set. It identifies a skill's content independently of the
// archive that carries it.
//
// It is the sha256 digest ("sha256:<hex>") of one line per file,
//
//	<mode> <hex sha256 of the content> <path>\n
//
// where mode is "755" for an executable file and "644" otherwise, and the
// lines are sorted by the raw bytes of path. Directories do not appear, so
// empty directories do not count. Paths never hold control characters
// (layers refuse them), so the lines are unambiguous. To verify extracted
// files, hash each one, build these lines and hash them the same way.
func TreeDigest(files []FileDigest) digest.Digest {
	sorted := slices.Clone(files)
	slices.SortFunc(sorted, func(a, b FileDigest) int { return strings.Compare(a.Path, b.Path) })
	h := sha256.New()
	for _, f := range sorted {
		fmt.Fprintf(h, "%o %s %s\n", fileMode(f.Executable), f.Digest.Encoded(), f.Path)
	}
	return newDigest(h)
}

// SkillDigests groups files by their top-level directory and returns the
// TreeDigest of each group, keyed by that directory's name. Paths in each
// group are relative to that directory; files at the top level of the
// layer belong to no skill and are left out.
func SkillDigests(files []FileDigest) map[string]digest.Digest {
	groups := map[string][]FileDigest{}
	for _, f := range files {
		skill, rest, ok := strings.Cut(f.Path, "/")
		if !ok {
			continue
		}
		f.Path = rest
		groups[skill] = append(groups[skill], f)
	}
	out := make(map[string]digest.Digest, len(groups))
	for skill, group := range groups {
		out[skill] = TreeDigest(group)
	}
	return out
}
