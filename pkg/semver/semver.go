// Package semver reads, compares and raises Semantic Versioning 2.0.0
// versions: MAJOR.MINOR.PATCH with an optional pre-release and build
// suffix. Skill versions, package versions and release tags use it.
package semver

import (
	"fmt"
	"strconv"
	"strings"
)

// Part is the component of the version a bump raises.
type Part string

const (
	// Patch is for fixes, and for changes to MEMORY.md, EXAMPLES.md or
	// CALIBRATION.md, which need at least this.
	Patch Part = "patch"
	// Minor is for additive changes to the instructions.
	Minor Part = "minor"
	// Major is for breaking changes to the instructions.
	Major Part = "major"
)

// Version is a Semantic Versioning 2.0.0 version.
type Version struct {
	Major, Minor, Patch uint64
	// Pre is the pre-release ("rc.1" in 1.0.0-rc.1), Build the build
	// metadata ("exp.sha.5114f85"); both without their separator.
	Pre, Build string
}

// Parse reads MAJOR.MINOR.PATCH[-PRE][+BUILD].
func Parse(s string) (Version, error) {
	var v Version
	rest := s
	if i := strings.IndexByte(rest, '+'); i >= 0 {
		v.Build, rest = rest[i+1:], rest[:i]
		if !validIdentifiers(v.Build, false) {
			return Version{}, fmt.Errorf("version %q: invalid build metadata %q", s, v.Build)
		}
	}
	if i := strings.IndexByte(rest, '-'); i >= 0 {
		v.Pre, rest = rest[i+1:], rest[:i]
		if !validIdentifiers(v.Pre, true) {
			return Version{}, fmt.Errorf("version %q: invalid pre-release %q", s, v.Pre)
		}
	}
	parts := strings.Split(rest, ".")
	if len(parts) != 3 {
		return Version{}, fmt.Errorf("version %q is not MAJOR.MINOR.PATCH (e.g. 1.0.0)", s)
	}
	nums := [3]*uint64{&v.Major, &v.Minor, &v.Patch}
	for i, p := range parts {
		if !numeric(p) || (len(p) > 1 && p[0] == '0') {
			return Version{}, fmt.Errorf("version %q is not MAJOR.MINOR.PATCH: %q is not a number without leading zeros", s, p)
		}
		n, err := strconv.ParseUint(p, 10, 64)
		if err != nil {
			return Version{}, fmt.Errorf("version %q: %q is too large", s, p)
		}
		*nums[i] = n
	}
	return v, nil
}

func numeric(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// validIdentifiers checks dot-separated identifiers of [0-9A-Za-z-];
// numeric pre-release identifiers may not have leading zeros.
func validIdentifiers(s string, pre bool) bool {
	for _, id := range strings.Split(s, ".") {
		if id == "" {
			return false
		}
		for i := 0; i < len(id); i++ {
			c := id[i]
			if !(c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
				return false
			}
		}
		if pre && numeric(id) && len(id) > 1 && id[0] == '0' {
			return false
		}
	}
	return true
}

func (v Version) String() string {
	s := fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
	if v.Pre != "" {
		s += "-" + v.Pre
	}
	if v.Build != "" {
		s += "+" + v.Build
	}
	return s
}

// Next is v with part raised and the lower parts reset. The pre-release
// and build suffixes are dropped: a bump always gives a plain release
// greater than v (1.2.3-rc.1 → 1.2.4 for a patch).
func (v Version) Next(p Part) (Version, error) {
	switch p {
	case Patch:
		return Version{Major: v.Major, Minor: v.Minor, Patch: v.Patch + 1}, nil
	case Minor:
		return Version{Major: v.Major, Minor: v.Minor + 1}, nil
	case Major:
		return Version{Major: v.Major + 1}, nil
	}
	return Version{}, fmt.Errorf("unknown version part %q: want patch, minor or major", p)
}

// Compare orders versions by Semantic Versioning precedence: -1 when a < b,
// 0 when equal (build metadata does not count), +1 when a > b.
func Compare(a, b Version) int {
	for _, c := range [][2]uint64{{a.Major, b.Major}, {a.Minor, b.Minor}, {a.Patch, b.Patch}} {
		if c[0] != c[1] {
			if c[0] < c[1] {
				return -1
			}
			return 1
		}
	}
	switch {
	case a.Pre == b.Pre:
		return 0
	case a.Pre == "":
		return 1 // a release is greater than its pre-releases
	case b.Pre == "":
		return -1
	}
	as, bs := strings.Split(a.Pre, "."), strings.Split(b.Pre, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		if c := compareIdentifier(as[i], bs[i]); c != 0 {
			return c
		}
	}
	switch {
	case len(as) < len(bs):
		return -1
	case len(as) > len(bs):
		return 1
	}
	return 0
}

// compareIdentifier compares pre-release identifiers: numbers
// numerically, below words, which compare as ASCII.
func compareIdentifier(a, b string) int {
	an, bn := numeric(a), numeric(b)
	switch {
	case an && bn:
		if len(a) != len(b) {
			if len(a) < len(b) {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	case an:
		return -1
	case bn:
		return 1
	}
	return strings.Compare(a, b)
}
