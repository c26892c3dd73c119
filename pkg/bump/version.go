// Package bump raises the version of a skill: the SKILL.md version, and
// the version MEMORY.md records, which must stay in sync. It edits only
// the bytes of those two values, so a bump shows in a diff as exactly two
// changed lines. The version arithmetic is package semver's.
package bump

import "github.com/stax-dev/stax/pkg/semver"

// Version and Part are semver's, for the callers of bump.
type (
	Version = semver.Version
	Part    = semver.Part
)

// The parts a bump raises.
const (
	Patch = semver.Patch
	Minor = semver.Minor
	Major = semver.Major
)

// ParseVersion is semver.Parse.
func ParseVersion(s string) (Version, error) { return semver.Parse(s) }
