// Package semver reads, compares and raises Semantic Versioning 2.0.0
// versions: MAJOR.MINOR.PATCH with an optional pre-release and build
// suffix. Skill versions, package versions and release tags use it, and
// version ranges (^1.2.0, ~1.2, >=1.0.0 <2.0.0, 1.x, 1.0.0 - 2.0.0, ||)
// choose among a repository's tags.
//
// Parsing, precedence and ranges are those of Masterminds/semver, the
// library Helm uses for chart versions over OCI tags, so a range means in
// stax what it means in Helm and npm; this package keeps stax's own
// messages and the bump arithmetic.
package semver

import (
	"errors"
	"fmt"
	"strconv"

	mmsemver "github.com/Masterminds/semver/v3"
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

// Parse reads MAJOR.MINOR.PATCH[-PRE][+BUILD], strictly: no leading v,
// no missing part.
func Parse(s string) (Version, error) {
	v, err := mmsemver.StrictNewVersion(s)
	if err != nil {
		return Version{}, parseError(s, err)
	}
	return Version{Major: v.Major(), Minor: v.Minor(), Patch: v.Patch(), Pre: v.Prerelease(), Build: v.Metadata()}, nil
}

// parseError says in stax's words what the library found wrong with s.
func parseError(s string, err error) error {
	var num *strconv.NumError
	switch {
	case errors.Is(err, mmsemver.ErrInvalidPrerelease):
		return fmt.Errorf("version %q: invalid pre-release: identifiers are dot-separated [0-9A-Za-z-], none empty", s)
	case errors.Is(err, mmsemver.ErrInvalidMetadata):
		return fmt.Errorf("version %q: invalid build metadata: identifiers are dot-separated [0-9A-Za-z-], none empty", s)
	case errors.Is(err, mmsemver.ErrSegmentStartsZero):
		return fmt.Errorf("version %q: a number of MAJOR.MINOR.PATCH or of the pre-release has leading zeros", s)
	case errors.Is(err, mmsemver.ErrInvalidCharacters):
		return fmt.Errorf("version %q is not MAJOR.MINOR.PATCH: a part is not a number without leading zeros (e.g. 1.0.0)", s)
	case errors.Is(err, mmsemver.ErrVersionTooLong):
		return fmt.Errorf("version %.40q... is over %d bytes", s, mmsemver.MaxVersionLen)
	case errors.As(err, &num) && errors.Is(num.Err, strconv.ErrRange):
		return fmt.Errorf("version %q: %q is too large", s, num.Num)
	}
	return fmt.Errorf("version %q is not MAJOR.MINOR.PATCH (e.g. 1.0.0)", s)
}

func (v Version) String() string { return v.library().String() }

// library is v as Masterminds/semver holds it.
func (v Version) library() *mmsemver.Version {
	return mmsemver.New(v.Major, v.Minor, v.Patch, v.Pre, v.Build)
}

// Next is v with part raised and the lower parts reset. The pre-release
// and build suffixes are dropped: a bump always gives a plain release
// greater than v (1.2.3-rc.1 → 1.2.4 for a patch, where the library's
// IncPatch would give 1.2.3).
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
func Compare(a, b Version) int { return a.library().Compare(b.library()) }
