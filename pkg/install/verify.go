package install

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// VerifyOptions say how the folders verified were installed. The zero
// value of each field is a usable default.
type VerifyOptions struct {
	// Root confines the folders as Options.Root does an install's: a
	// folder that leads outside it through a symbolic link, which install
	// refuses, fails verification. Empty means the parent of each folder.
	Root string
	// Workspace and Portable are the install's (see Options): they say
	// which paths the skills' SKILL.md must hold here.
	Workspace string
	Portable  bool
	// Records is where the folders' records are kept (see
	// Options.Records).
	Records string
	// LockDir holds the install locks (see store.LockDir).
	LockDir string
	// Notes receives what recovering an interrupted install did.
	Notes io.Writer
}

// Verify compares the skills installed in dir with the files stax wrote,
// and returns how they differ, and the folder's record. An install a
// crash interrupted is finished or undone first, so that what is verified
// is an install, not half of one.
func Verify(ctx context.Context, dir string, opts VerifyOptions) ([]Drift, *Record, error) {
	if err := checkConfined(opts.Root, dir); err != nil {
		return nil, nil, err
	}
	note, err := Recover(ctx, dir, opts.LockDir)
	if err != nil {
		return nil, nil, err
	}
	if note != "" && opts.Notes != nil {
		fmt.Fprintf(opts.Notes, "note: %s\n", note)
	}
	recordDir, err := RecordDir(opts.Records, opts.Root, dir)
	if err != nil {
		return nil, nil, err
	}
	drift, err := CheckIn(dir, recordDir)
	if err != nil {
		return nil, nil, err
	}
	rec, err := ReadRecordIn(dir, recordDir)
	if err != nil {
		return nil, nil, err
	}
	return relocated(drift, dir, rec, opts), rec, nil
}

// relocated adds to drift the skills of rec, as they are on disk, whose
// SKILL.md holds the paths of another place than the one an install here
// would write: the record says which paths were substituted. A skill
// already drifting is reported for its files alone; a record that does
// not say (written before it did) is not second-guessed.
func relocated(drift []Drift, dir string, rec *Record, opts VerifyOptions) []Drift {
	drifted := map[string]bool{}
	for _, d := range drift {
		drifted[d.Skill] = true
	}
	for _, name := range slices.Sorted(maps.Keys(rec.Skills)) {
		s := rec.Skills[name]
		if drifted[name] || s.Vars == "" || varsHold(s.Vars, pathVars(dir, name, opts.Root, opts.Workspace, opts.Portable)) {
			continue
		}
		drift = append(drift, Drift{Skill: name, Added: []string{}, Removed: []string{}, Changed: []string{}, Relocated: true})
	}
	slices.SortFunc(drift, func(a, b Drift) int { return strings.Compare(a.Skill, b.Skill) })
	if drift == nil {
		drift = []Drift{}
	}
	return drift
}
