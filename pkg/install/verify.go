package install

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/lock"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/signature"
	"github.com/stax-dev/stax/pkg/trust"
	"github.com/stax-dev/stax/pkg/trustpolicy"
)

// VerifyOptions are the checks of the installed skills. The zero value of
// each field but Targets is a usable default.
type VerifyOptions struct {
	Targets []Target
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
	// Locked is the project's stax.lock; nil pins nothing.
	Locked *lock.Lock
	// LockDir holds the install locks (see store.LockDir).
	LockDir string
	// Notes receives what recovering an interrupted install did.
	Notes io.Writer
	// Signed compares installed files with their packages' signatures.
	Signed SignedOptions
}

// SignedOptions say which keys to check installed skills against, and
// where to find their packages.
type SignedOptions struct {
	// Trusted are the signers the command names; with none, each
	// package's signers come from the trust policy file at Policy, and a
	// package no signer is trusted for is not checked. Its trusted root
	// replaces the policy's.
	Trusted trust.Trusted
	Policy  string
	// Open gives the source of packages and the size limit of a read; it
	// is called only when some skill came from a package.
	Open func() (trust.Source, int64, error)
	// Loader makes the verifiers, once for every folder checked; nil is
	// a new one for each, warning nowhere.
	Loader *trust.Loader
}

// VerifyResult is what Verify found; Verified when nothing differs.
type VerifyResult struct {
	Verified bool           `json:"verified"`
	Targets  []VerifyTarget `json:"targets"`
	// Manifest says how stax.yaml and stax.lock disagree (an install
	// --frozen refuses them); empty when they agree, or there is no lock.
	Manifest string `json:"manifest,omitempty"`
}

// VerifyTarget is what Verify found in one folder.
type VerifyTarget struct {
	Runtimes []string `json:"runtimes"`
	Dir      string   `json:"dir"`
	Drift    []Drift  `json:"drift"`
	// Unlocked are installed skills whose digest stax.lock does not pin.
	Unlocked []string `json:"unlocked"`
	// Unsigned are installed skills whose files differ from what their
	// package's signature signs; checked when a key is trusted for it.
	Unsigned []trust.SignedDrift `json:"unsigned,omitempty"`
}

// Verify compares the skills installed in each target with the files stax
// wrote, with stax.lock, and with what their packages' signatures sign.
// An install a crash interrupted is finished or undone first, so that what
// is verified is an install, not half of one.
func Verify(ctx context.Context, opts VerifyOptions) (VerifyResult, error) {
	res := VerifyResult{Verified: true, Targets: []VerifyTarget{}}
	for _, t := range opts.Targets {
		if err := checkConfined(opts.Root, t.Dir); err != nil {
			return res, err
		}
		note, err := Recover(ctx, t.Dir, opts.LockDir)
		if err != nil {
			return res, err
		}
		if note != "" && opts.Notes != nil {
			fmt.Fprintf(opts.Notes, "note: %s\n", note)
		}
		recordDir, err := RecordDir(opts.Records, opts.Root, t.Dir)
		if err != nil {
			return res, err
		}
		drift, err := CheckIn(t.Dir, recordDir)
		if err != nil {
			return res, err
		}
		rec, err := ReadRecordIn(t.Dir, recordDir)
		if err != nil {
			return res, err
		}
		drift = relocated(drift, t.Dir, rec, opts)
		vt := VerifyTarget{Runtimes: Names(t.Runtimes), Dir: t.Dir, Drift: drift, Unlocked: opts.Locked.Unlocked(rec.Digests())}
		if vt.Unsigned, err = CheckSigned(ctx, t.Dir, rec, opts.Signed); err != nil {
			return res, err
		}
		if len(vt.Drift) > 0 || len(vt.Unlocked) > 0 || len(vt.Unsigned) > 0 {
			res.Verified = false
		}
		res.Targets = append(res.Targets, vt)
	}
	return res, nil
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

// CheckSigned compares the skills installed in dir with what their
// packages' signatures sign, for the packages a signer is trusted for.
func CheckSigned(ctx context.Context, dir string, rec *Record, opts SignedOptions) ([]trust.SignedDrift, error) {
	byPackage := map[string][]trust.InstalledSkill{}
	for _, name := range slices.Sorted(maps.Keys(rec.Skills)) {
		s := rec.Skills[name]
		if _, err := reference.Parse(s.Package); err != nil || isDir(s.Package) {
			continue // built from a directory: nothing signed it
		}
		byPackage[s.Package] = append(byPackage[s.Package], trust.InstalledSkill{Dir: filepath.Join(dir, name), Path: name, Ref: s.Package, Digest: s.PackageDigest})
	}
	if len(byPackage) == 0 {
		return nil, nil
	}
	open, maxSize, err := opts.Open()
	if err != nil {
		return nil, err
	}
	loader := opts.Loader
	if loader == nil {
		loader = trust.NewLoader(nil)
	}
	var out []trust.SignedDrift
	for _, ref := range slices.Sorted(maps.Keys(byPackage)) {
		trusted, err := trust.PolicySigners(opts.Policy, trustpolicy.ScopeName(ref), opts.Trusted)
		if errdefs.Of(err) == errdefs.InvalidArgument && !opts.Trusted.Named() {
			continue // no signer trusted for it: only the install record is checked
		} else if err != nil {
			return nil, err
		}
		verifiers, err := loader.Verifiers(trusted)
		if err != nil {
			return nil, errdefs.Invalid(err)
		}
		drift, err := trust.CheckInstalled(ctx, byPackage[ref], open, verifiers, maxSize)
		if errors.Is(err, signature.ErrNotVerified) {
			return nil, errdefs.Corrupt(err)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, drift...)
	}
	return out, nil
}

func isDir(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.IsDir()
}
