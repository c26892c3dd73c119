package workflow

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/stax-dev/stax/internal/regularfile"
	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/declaration"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/install"
	"github.com/stax-dev/stax/pkg/proposal"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/source"
	"github.com/stax-dev/stax/pkg/stateful"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/target"
)

// ProposeOptions say which installed skill Propose reads.
type ProposeOptions struct {
	// Where are the folders to look for the skill in; the first runtime
	// folder whose install record holds it is the one read.
	Where Folders
	// Skill is the installed skill's directory name.
	Skill string
	// Summary is the proposal's summary; empty says what changed.
	Summary string
}

// ProposeResult is a proposal made from an installed skill's local
// changes, and what it holds.
type ProposeResult struct {
	Skill          string `json:"skill"`
	Dir            string `json:"dir"`
	Package        string `json:"package"`
	PackageVersion string `json:"packageVersion,omitempty"`
	// Files are the proposed files, by path in the proposal.
	Files []ProposedFile `json:"files"`
	// Entries are the MEMORY.md entries the package's MEMORY.md lacks;
	// none when that file is unchanged, or the package could not be read
	// (Skipped then says so).
	Entries []stateful.Entry `json:"entries"`
	// Skipped are local changes a proposal does not carry, with why.
	Skipped []string `json:"skipped"`
	// Proposal is the skill-update proposal, as stax apply reads it.
	Proposal *proposal.Proposal `json:"proposal"`
}

// ProposedFile is one file of a proposal.
type ProposedFile struct {
	Path string `json:"path"`
	// Status is "changed", or "added" for a file the package lacks.
	Status string `json:"status"`
}

// Propose turns the local changes of an installed stateful skill — its
// MEMORY.md, EXAMPLES.md or CALIBRATION.md as edited since stax installed
// them — into a revise proposal for its package's maintainer to stax apply
// in the package source, where it bumps the skill's patch version. Each
// file is proposed whole, so every entry keeps its signature (author and
// date). Other changes (SKILL.md, which install wrote with this machine's
// paths, and resources) are listed in Skipped, not proposed. A skill that
// is not installed, or has no local change to a stateful file, is an
// invalid argument.
func Propose(ctx context.Context, env *Env, opts ProposeOptions) (*ProposeResult, error) {
	if err := layers.CheckName(opts.Skill); err != nil {
		return nil, errdefs.Invalid(fmt.Errorf("propose %q: %w", opts.Skill, err))
	}
	placement, _, err := env.placeFor(opts.Where)
	if err != nil {
		return nil, err
	}
	dir, recordDir, installed, err := findInstalled(placement, opts.Skill)
	if err != nil {
		return nil, err
	}
	drifts, err := install.CheckIn(dir, recordDir)
	if err != nil {
		return nil, err
	}
	res := &ProposeResult{Skill: opts.Skill, Dir: dir, Package: installed.Package, PackageVersion: installed.PackageVersion,
		Files: []ProposedFile{}, Entries: []stateful.Entry{}, Skipped: []string{}}
	changed := map[string]string{}
	if i := slices.IndexFunc(drifts, func(d install.Drift) bool { return d.Skill == opts.Skill }); i >= 0 {
		if err := res.classifyDrift(drifts[i], changed); err != nil {
			return nil, err
		}
	}
	skillDir := filepath.Join(dir, opts.Skill)
	// The package's own files tell which memory entries are new; a
	// package no longer at hand only loses that listing, not the proposal.
	base, err := env.installedPackageSkill(ctx, installed, opts.Skill)
	if err != nil {
		res.Skipped = append(res.Skipped, fmt.Sprintf("the list of new MEMORY.md entries: %s could not be read (%v)", installed.Package, err))
	} else if err := unsentChanges(skillDir, base, changed); err != nil {
		return nil, err
	}
	slices.Sort(res.Skipped)
	if len(changed) == 0 {
		return nil, errdefs.Invalid(fmt.Errorf("%s has no local changes to propose: its stateful files (%s) in %s are the package's; other changes: %s",
			opts.Skill, strings.Join(stateful.Files, ", "), dir, orNone(res.Skipped)))
	}
	if err := res.propose(skillDir, base, changed, opts.Summary); err != nil {
		return nil, err
	}
	return res, nil
}

// findInstalled is the first folder of placement whose install record
// holds skill: the folder, the directory of its record, and the skill as
// recorded. A skill in none is an invalid argument.
func findInstalled(placement *install.Placement, skill string) (dir, recordDir string, installed install.InstalledSkill, err error) {
	for _, t := range placement.Targets {
		rd, err := placement.RecordDir(t.Dir)
		if err != nil {
			return "", "", installed, err
		}
		rec, err := install.ReadRecordIn(t.Dir, rd)
		if err != nil {
			return "", "", installed, err
		}
		if s, ok := rec.Skills[skill]; ok {
			return t.Dir, rd, s, nil
		}
	}
	return "", "", installed, errdefs.Invalid(fmt.Errorf("%q is not installed in %s: stax propose sends back the changes of a skill stax installed; check the name with stax list, or pass --runtime and --dir",
		skill, strings.Join(placement.Dirs(), ", ")))
}

// classifyDrift sorts the skill's drift from its record: changed and added
// stateful files go in changed, with their status; every other change is
// listed in r.Skipped. A skill whose directory is gone is an invalid
// argument.
func (r *ProposeResult) classifyDrift(drift install.Drift, changed map[string]string) error {
	if drift.Missing {
		return errdefs.Invalid(fmt.Errorf("%s is recorded in %s but its directory is gone: nothing to propose", r.Skill, r.Dir))
	}
	for status, names := range map[string][]string{"changed": drift.Changed, "added": drift.Added} {
		for _, name := range names {
			if stateful.IsSibling(name) {
				changed[name] = status
			} else {
				r.Skipped = append(r.Skipped, name+" ("+status+"; only MEMORY.md, EXAMPLES.md and CALIBRATION.md are proposed)")
			}
		}
	}
	for _, name := range drift.Removed {
		r.Skipped = append(r.Skipped, name+" (removed; a proposal only adds or replaces files)")
	}
	return nil
}

// propose reads the changed files of skillDir into r's proposal, with the
// new MEMORY.md entries when the package's files, base, are at hand.
func (r *ProposeResult) propose(skillDir string, base *source.SkillFiles, changed map[string]string, summary string) error {
	names := slices.Sorted(maps.Keys(changed))
	local, err := readProposed(skillDir, names)
	if err != nil {
		return err
	}
	p := &proposal.Proposal{Operation: proposal.Revise, Files: map[string]string{}}
	for _, name := range names {
		data := local[name]
		key := r.Skill + "/" + name
		p.Files[key] = string(data)
		r.Files = append(r.Files, ProposedFile{Path: key, Status: changed[name]})
		if name == stateful.MemoryFile && base != nil {
			entries, err := newEntries(base.Siblings[name], data, filepath.Join(r.Dir, r.Skill, name))
			if err != nil {
				return err
			}
			r.Entries = entries
		}
	}
	p.Summary = summary
	if p.Summary == "" {
		p.Summary = r.summary()
	}
	r.Proposal = p
	return nil
}

// unsentChanges adds to changed the stateful files of skillDir whose bytes
// differ from the package's: an install that merged the user's MEMORY.md
// entries into a new version records the merged file as installed, yet
// those entries are still the user's to send.
func unsentChanges(skillDir string, base *source.SkillFiles, changed map[string]string) error {
	for _, name := range stateful.Files {
		if _, ok := changed[name]; ok {
			continue
		}
		info, err := os.Lstat(filepath.Join(skillDir, name))
		if err != nil || !info.Mode().IsRegular() {
			continue // absent, or not a file: the record's check reports it
		}
		local, err := readProposed(skillDir, []string{name})
		if err != nil {
			return err
		}
		upstream, ok := base.Siblings[name]
		switch {
		case !ok:
			changed[name] = "added"
		case !bytes.Equal(local[name], upstream):
			changed[name] = "changed"
		}
	}
	return nil
}

func orNone(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, ", ")
}

// readProposed reads the files names of skillDir for a proposal, which is
// sent to someone else: a file that is not a regular file in the
// directory itself — a symbolic link, say to the user's credentials, put
// in a committed folder — is refused unread, as is one over the limit of
// a stateful file.
func readProposed(skillDir string, names []string) (map[string][]byte, error) {
	root, err := os.OpenRoot(skillDir)
	if err != nil {
		return nil, errdefs.MarkLocal(err)
	}
	defer root.Close()
	out := map[string][]byte{}
	for _, name := range names {
		where := filepath.Join(skillDir, name)
		info, err := root.Lstat(name)
		if err != nil {
			return nil, errdefs.MarkLocal(err)
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			return nil, errdefs.Invalid(fmt.Errorf("%s is a symbolic link; a proposal carries only the skill's own regular files: replace the link with the file", where))
		}
		f, err := regularfile.OpenIn(root, name)
		if err != nil {
			return nil, errdefs.MarkLocal(fmt.Errorf("%s: %w", skillDir, err))
		}
		data, err := regularfile.ReadAll(f, where, stateful.MaxFileSize)
		f.Close()
		if err != nil {
			return nil, err
		}
		out[name] = data
	}
	return out, nil
}

// newEntries are the MEMORY.md entries of local that base lacks. Each
// must be signed with its author and date, so the maintainer knows whose
// learning it is: an unsigned one is an invalid argument naming its line.
func newEntries(base, local []byte, where string) ([]stateful.Entry, error) {
	known := map[string]bool{}
	for _, e := range stateful.ParseMemory(base).Entries() {
		known[e.Section+"\x00"+e.Text] = true
	}
	out := []stateful.Entry{}
	for _, e := range stateful.ParseMemory(local).Entries() {
		if known[e.Section+"\x00"+e.Text] {
			continue
		}
		if e.Signer == "" || e.Date == "" {
			return nil, errdefs.Invalid(fmt.Errorf("%s:%d: the new entry is not signed: end it with — @you, YYYY-MM-DD, so the maintainer knows whose learning it is", where, e.Line))
		}
		out = append(out, e)
	}
	return out, nil
}

// summary says what the proposal brings back.
func (r *ProposeResult) summary() string {
	var parts []string
	for _, f := range r.Files {
		name := strings.TrimPrefix(f.Path, r.Skill+"/")
		if name == stateful.MemoryFile && len(r.Entries) > 0 {
			var who []string
			for _, e := range r.Entries {
				who = append(who, e.Signer+" "+e.Date)
			}
			entries := "entries"
			if len(r.Entries) == 1 {
				entries = "entry"
			}
			parts = append(parts, fmt.Sprintf("%d new %s %s (%s)", len(r.Entries), name, entries, strings.Join(who, ", ")))
			continue
		}
		parts = append(parts, name+" "+f.Status)
	}
	// The package's reference may be a path on this machine (an OCI
	// layout); the version is what the maintainer knows it by.
	from := r.Skill
	if r.PackageVersion != "" {
		from += " as installed from package version " + r.PackageVersion
	}
	return "Learnings from " + from + ": " + strings.Join(parts, "; ")
}

// installedPackageSkill reads the SKILL.md and stateful files of skill
// name in the package an install record names, at its recorded digest:
// from its OCI layout, or from the local store for a registry's package
// and one built from a git source.
func (e *Env) installedPackageSkill(ctx context.Context, s install.InstalledSkill, name string) (*source.SkillFiles, error) {
	d, err := declaration.Parse(s.Package, declaration.Where{File: install.RecordFile})
	if err != nil {
		return nil, err
	}
	ref := d.Ref
	ref.Digest = s.PackageDigest
	open := func() (*target.Target, error) { return e.Opener.OpenLocal(ctx, ref, store.ReadOnly) }
	// The store a git source's package is read from through a view,
	// whose Close does not close it: closed here, or its lock is held
	// until the process ends (or the runtime's GC closes the file).
	var local *target.Target
	defer func() {
		if local != nil {
			local.Close()
		}
	}()
	switch {
	case d.Kind == declaration.Directory:
		// Built for the command that builds it: every edit of the
		// directory builds another, and none is kept.
		return nil, errors.New("a package built from a directory is not kept in the local store")
	case d.Kind == declaration.Git:
		open = func() (*target.Target, error) {
			t, err := e.Opener.OpenLocal(ctx, reference.Reference{}, store.ReadOnly)
			if err != nil {
				return nil, err
			}
			local = t
			return t.WithKey(s.PackageDigest, s.Package), nil
		}
	case ref.IsLayout():
		open = func() (*target.Target, error) { return e.Opener.Open(ctx, ref, store.ReadOnly) }
	}
	src, err := source.Lookup(ctx, open, s.Package)
	if d.Kind == declaration.Git && errdefs.Of(err) == errdefs.InvalidArgument {
		return nil, fmt.Errorf("the package %s built from it is not in the local store (pruned, or installed by a stax that did not keep it): run stax install --frozen in the project that installed it, which builds it again at the commit stax.lock records and keeps it", s.PackageDigest)
	}
	if err != nil {
		return nil, err
	}
	defer src.Close()
	pkg, err := src.Package(ctx)
	if err != nil {
		return nil, err
	}
	return src.ReadSkill(ctx, pkg, name)
}
