// Package install writes a merged set of skills into the folders agent
// runtimes read, next to the user's own skills and without ever touching
// them: stax records what it installs, replaces and prunes only that,
// never discards a change the user made to it, and swaps a whole install
// in as one transaction that a crash at any point leaves old or new
// (Stage, then Commit). It is handed the skills and a reader of each
// package's layer: resolving, fetching and checking trust are the job's.
//
// Every name that comes from outside is checked by layers.CheckName, and
// every change in a folder goes through an *os.Root, so that neither a
// crafted name nor a symbolic link planted in the folder reaches anything
// outside it.
package install

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/opencontainers/go-digest"
	"golang.org/x/sync/errgroup"

	"github.com/stax-dev/stax/internal/atomicfile"
	"github.com/stax-dev/stax/internal/filelock"
	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/substitute"
)

// Skill is a skill to install.
type Skill struct {
	// Path is the skill's directory name in the folder.
	Path string
	// Source is a directory holding the skill's files; or, when Layer is
	// set, empty: the files are then read from Layer, and only when the
	// folder does not hold them as recorded already.
	Source        string
	Layer         *Layer
	Package       string
	PackageDigest digest.Digest
	// PackageVersion is the version of the package (its config's), which
	// the record keeps so that a later install can say what it updated.
	PackageVersion string
	// Digest is the skill's digest in its package (layers.TreeDigest of
	// its files). A skill read from a Layer must hash to it.
	Digest digest.Digest
}

// Options say where and how to install.
type Options struct {
	// Dir is the folder the runtime reads skills from (for Install and
	// Uninstall; InstallAll takes its folders as an argument).
	Dir string
	// Root confines every change: the folders must lie inside it, a
	// symbolic link leading out of it is refused, and backups go to its
	// BackupDir. Empty means the parent of each folder.
	Root string
	// Workspace replaces ${STAX_WORKSPACE} in SKILL.md; empty leaves it.
	Workspace string
	// Portable writes ${STAX_SKILL_DIR} as the skill's directory relative
	// to Root and ${STAX_WORKSPACE} as ".", instead of absolute paths: a
	// project commits its folders, and every clone, wherever it is, must
	// hold the same bytes. Agents run with the project as their working
	// directory, so the relative paths lead to the same files. Without
	// Root the paths stay absolute.
	Portable bool
	// Force replaces skills of the user's that have the name of one being
	// installed, and skills stax installed that the user changed since;
	// either is moved to a backup under Root, never deleted.
	Force bool
	// Keep are skills an uninstall leaves in place as the user's own: they
	// are dropped from the record, their files stay.
	Keep []string
	// LockDir holds the locks that serialize installs into one folder, and
	// the journals of their transactions; kept out of the folder so a
	// refused install leaves no trace there and a project cannot plant a
	// journal.
	LockDir string
	// Files are written in the same transaction as the folders, such as
	// stax.lock and stax.yaml: if one cannot be written, the folders and
	// the others are rolled back, and a crash leaves all old or all new.
	Files []LockFile
	// Records, when set, keeps the record of each folder out of it, in a
	// directory of Records named after the folder (see RecordDir): user
	// scope keeps its records under $STAX_HOME. Empty keeps each folder's
	// record in the folder.
	Records string
	// Concurrency is how many layers are extracted at once; 0 is
	// layers.ExtractWorkers().
	Concurrency int
}

// LockFile is a file written with an install, such as stax.lock.
type LockFile struct {
	Path string
	// Mode is the file's permissions; 0 is 0644.
	Mode fs.FileMode
	// Write writes the file's content. It is called more than once (to
	// hash the content, and to write it) and writes the same each time.
	Write func(io.Writer) error
}

// BackupDir is where, under Options.Root, replaced skills are kept.
const BackupDir = StateDir + "/backup"

// StateDir is the directory of stax's own files in a project. When stax
// creates it, it writes StateIgnore into it: backups are copies of a
// runtime folder's past, never something to commit.
const StateDir = ".stax"

// StateIgnore is the .gitignore stax writes into a StateDir it creates,
// and its content, which ignores everything the directory holds.
const (
	StateIgnore        = ".gitignore"
	stateIgnoreContent = "*\n"
)

// Result says what an install changed in one folder.
type Result struct {
	Dir       string   `json:"dir"`
	Installed []string `json:"installed"`
	Updated   []string `json:"updated"`
	// Updates say, per skill of Updated, which package and version it
	// came from before and comes from now.
	Updates   []Update `json:"updates,omitempty"`
	Unchanged []string `json:"unchanged"`
	Removed   []string `json:"removed"`
	// Replaced are skills of the user's that --force replaced.
	Replaced []string `json:"replaced"`
	// Kept are skills an uninstall left in place as the user's own.
	Kept []string `json:"kept"`
	// Merged are the files of updated skills that the user had changed
	// and the install merged with the new version's (see MergeMemory).
	Merged []MergedFile `json:"merged,omitempty"`
	// Backups are where replaced or removed skills with the user's
	// changes were moved.
	Backups []string `json:"backups"`
	// Recovered says what was done to an install a crash interrupted.
	Recovered string `json:"recovered,omitempty"`
}

// Update is a skill an install wrote again over the one it had
// installed: from another package, another version, or the same package
// with files that changed on disk.
type Update struct {
	Skill string         `json:"skill"`
	From  PackageVersion `json:"from"`
	To    PackageVersion `json:"to"`
}

// PackageVersion names the package a skill came from.
type PackageVersion struct {
	// Package is its reference as installed (a tag moves: Digest pins it).
	Package string `json:"package"`
	// Version is the package's version; empty when a record written
	// before versions were recorded does not say.
	Version string        `json:"version,omitempty"`
	Digest  digest.Digest `json:"digest"`
}

// Outcome is what Staged.Commit did.
type Outcome struct {
	Results []*Result
	// Changed are the paths of the Options.Files that did not already
	// hold their data, and were written.
	Changed []string
}

// ConflictError lists skills in a folder that stax did not install and an
// install would replace.
type ConflictError struct {
	Dir    string
	Skills []string
}

func (e *ConflictError) Error() string {
	them, they := "them", "they are"
	if len(e.Skills) == 1 {
		them, they = "it", "it is"
	}
	return fmt.Sprintf("%s already holds %s, which stax did not install: rename or remove %s, or pass --force to replace %s (%s moved to %s)",
		e.Dir, strings.Join(e.Skills, ", "), them, them, they, BackupDir)
}

// ModifiedError lists skills stax installed that were changed since, and
// that an install or uninstall would replace or remove.
type ModifiedError struct {
	Dir    string
	Skills []Drift
	// Uninstall is whether every skill was being removed (stax
	// uninstall): only then is uninstall --keep a way out. After an
	// install, it would remove every other skill, and leave the kept one
	// in the way of the next install as a skill of the user's.
	Uninstall bool
}

func (e *ModifiedError) Error() string {
	var b strings.Builder
	names := make([]string, len(e.Skills))
	for i, d := range e.Skills {
		names[i] = d.Skill
		fmt.Fprintf(&b, "\n  %s: %s", d.Skill, d.describe())
	}
	fmt.Fprintf(&b, "\nstax left them as they are. Pass --force to replace them (your copies are moved to %s, where you can copy your changes back from)", BackupDir)
	if e.Uninstall {
		fmt.Fprintf(&b, ", or keep them as your own with `stax uninstall --keep %s`", strings.Join(names, ","))
	}
	return fmt.Sprintf("%s: skills stax installed were changed since:%s", e.Dir, b.String())
}

// Install makes opts.Dir hold exactly skills among the skills stax manages
// there: new ones are added, changed ones replaced, ones it installed
// before and no longer in the set removed. The user's own skills stay.
func Install(ctx context.Context, skills []Skill, opts Options) (*Result, error) {
	out, err := InstallAll(ctx, []string{opts.Dir}, skills, opts)
	if err != nil {
		return nil, err
	}
	return out.Results[0], nil
}

// Uninstall removes what stax installed in opts.Dir, and only that; skills
// in opts.Keep stay, as the user's own.
func Uninstall(ctx context.Context, opts Options) (*Result, error) {
	if _, err := os.Lstat(opts.Dir); errors.Is(err, fs.ErrNotExist) {
		return emptyResult(opts.Dir), nil
	}
	opts.Files = nil
	return Install(ctx, nil, opts)
}

// InstallAll installs skills into every folder of dirs, and writes
// opts.Files, all or nothing: Stage, then Commit.
func InstallAll(ctx context.Context, dirs []string, skills []Skill, opts Options) (*Outcome, error) {
	st, err := Stage(ctx, dirs, skills, opts)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	return st.Commit()
}

// Staged is an install checked and staged in every folder, which holds
// their locks until Close: nothing a runtime reads has changed yet.
type Staged struct {
	plans []*pending
	files []LockFile
	tx    *transaction
}

// Stage locks every folder of dirs, finishes or undoes an install a crash
// interrupted there, refuses to touch skills of the user's and changes
// the user made (unless opts.Force), and stages skills in each. Commit
// then swaps them in with opts.Files; Close, without Commit, leaves every
// folder and file as it was.
func Stage(ctx context.Context, dirs []string, skills []Skill, opts Options) (_ *Staged, err error) {
	st := &Staged{plans: make([]*pending, len(dirs)), files: opts.Files, tx: newTransaction(opts.LockDir)}
	defer func() {
		if err != nil {
			st.Close()
		}
	}()
	// Every stax locks folders in the order of their paths, whatever
	// order its placement lists them in: two installs that share two
	// folders never hold one each while they wait for the other.
	for _, i := range pathOrder(dirs) {
		o := opts
		o.Dir = dirs[i]
		p, err := prepare(ctx, skills, o)
		if err != nil {
			return nil, err
		}
		st.plans[i] = p
	}
	return st, nil
}

// Close releases the folders' locks, and removes what Stage staged that
// Commit did not swap in.
func (st *Staged) Close() {
	for i, p := range st.plans {
		if p != nil {
			p.close()
			st.plans[i] = nil
		}
	}
}

// Commit swaps the staged install into every folder, and writes the
// files, all or nothing: a journal kept beside the folder's lock says how
// to undo each step, and a failure (or, on the next run, a crash) at any
// step puts every folder and file back as they were.
func (st *Staged) Commit() (*Outcome, error) {
	plans := st.plans
	files := make([]*lockChange, len(st.files))
	for i, f := range st.files {
		lc, err := newLockChange(f, i)
		if err != nil {
			return nil, err
		}
		files[i] = lc
		// Every folder's lock is held: a temporary file of the file's
		// that is not fresh was left by a killed install.
		atomicfile.RemoveStale(f.Path)
	}
	out := &Outcome{}
	for i, p := range plans {
		if err := p.commit(st.tx, files); err != nil {
			return nil, rollbackAll(plans[:i+1], err, false)
		}
		out.Results = append(out.Results, p.result)
	}
	written, err := writeFiles(plans, files, out)
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(plans, func(p *pending) bool { return p.journaled }) {
		// Nothing changed, in any folder nor file: no journal to
		// complete or roll back, so no marker to write.
		for _, p := range plans {
			p.finish()
		}
		return out, nil
	}
	// The transaction is done once the marker is written: from there on a
	// crash is completed, not rolled back.
	err = step("commit")
	if err == nil {
		err = st.tx.commit()
	}
	if err != nil {
		return nil, rollbackFiles(plans, written, errdefs.MarkLocal(fmt.Errorf("commit the install: %w", err)))
	}
	afterCommit("commit")
	for _, p := range plans {
		p.finish()
		afterCommit("finish " + p.opts.Dir)
	}
	st.tx.forget()
	return out, nil
}

// writeFiles writes the files that change, once every folder is
// committed, and adds them to out.Changed; on a failure, it rolls back
// the folders and the files written.
func writeFiles(plans []*pending, files []*lockChange, out *Outcome) ([]*lockChange, error) {
	var written []*lockChange
	for _, lc := range files {
		if !lc.changes() {
			continue
		}
		err := step("lock")
		if err == nil {
			err = lc.writeFile()
		}
		if err != nil {
			return nil, rollbackFiles(plans, written, errdefs.MarkLocal(fmt.Errorf("write %s: %w", lc.Path, err)))
		}
		written = append(written, lc)
		out.Changed = append(out.Changed, lc.given)
	}
	return written, nil
}

// pathOrder is the indexes of dirs in the order of their absolute paths.
func pathOrder(dirs []string) []int {
	abs := make([]string, len(dirs))
	order := make([]int, len(dirs))
	for i, dir := range dirs {
		abs[i], order[i] = dir, i
		if a, err := filepath.Abs(dir); err == nil {
			abs[i] = a
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return strings.Compare(abs[a], abs[b]) })
	return order
}

// pending is an install into one folder, staged and ready to swap in. It
// holds the folder's lock until close.
type pending struct {
	result *Result
	opts   Options
	// base confines every change; folder is the folder inside it, as a
	// path relative to base and as its own root.
	base      *os.Root
	basePath  string
	folderRel string
	folder    *os.Root
	journal   string
	staging   string // name in folder
	swaps     []string
	prune     []string
	backups   map[string]bool // names moved to a backup rather than aside
	keep      []string
	// spool holds the record the install writes; previous is the digest
	// of the record as it was.
	spool        *spool
	previous     digest.Digest
	hadRecord    bool
	recordCopied bool
	// record is the directory the folder's record is kept in: the folder
	// itself, or its directory under Options.Records, which recordMade
	// lists the directories prepare created of, innermost first. legacy
	// says the record was read from the folder, where an older stax kept
	// it: this install writes it in its new place, and removes the old
	// one once committed.
	record        *os.Root
	recordDir     string // "" for the folder
	recordPath    string
	recordMade    []string
	legacy        bool
	recordWritten bool
	// statPath is the folder's stat cache (see statCache); statInRecord
	// says the record holds stat, as an older stax wrote it: the record
	// is written again without, and its stat moves to the cache.
	statPath     string
	statInRecord bool
	// merges are the skills the user changed only the MEMORY.md of, which
	// the install merges rather than refuses (see mergeMemory), with how
	// they differ from the record and what it knew of their MEMORY.md.
	merges map[string]memoryMerge
	// verbatim are the skills whose entries the next record keeps as
	// they are; sameRecord is set when it is the record as it was.
	verbatim   map[string]bool
	sameRecord bool
	moves      [][2]string // done, relative to base
	committing bool
	// journaled is set once the journal is written: the folder or the
	// lock file is about to change.
	journaled bool
	finished  bool
	// createdFrom is the outermost directory of the folder's path, relative
	// to base, that open created; "" when the folder was there.
	createdFrom string
	unlock      func()
	// backupRel is this install's backup directory, and backupMade the
	// outermost directory of its path the install made.
	backupRel  string
	backupMade string
	// stateMade says that this install's transaction created StateDir
	// under the base, for the last rollback of its folders to remove.
	stateMade bool
}

func emptyResult(dir string) *Result {
	return &Result{Dir: dir, Installed: []string{}, Updated: []string{}, Unchanged: []string{}, Removed: []string{},
		Replaced: []string{}, Kept: []string{}, Backups: []string{}}
}

// prepare locks the folder, finishes or undoes an install a crash
// interrupted, refuses to touch skills of the user's and changes the user
// made (unless opts.Force), and stages every new or changed skill in the
// folder. Nothing the runtime reads changes until commit.
func prepare(ctx context.Context, skills []Skill, opts Options) (_ *pending, err error) {
	for _, s := range skills {
		if err := layers.CheckName(s.Path); err != nil {
			return nil, errdefs.Precondition(fmt.Errorf("skill from %s: %w", s.Package, err))
		}
	}
	unlock, journal, err := lockFolder(ctx, opts.LockDir, opts.Dir)
	if err != nil {
		return nil, err
	}
	p := &pending{opts: opts, unlock: unlock, journal: journal, statPath: statCachePath(journal), result: emptyResult(opts.Dir), backups: map[string]bool{}, verbatim: map[string]bool{}, merges: map[string]memoryMerge{}}
	defer func() {
		if err != nil {
			p.close()
		}
	}()
	if err := p.begin(); err != nil {
		return nil, err
	}
	want := newPathIndex(len(skills), func(i int) *Skill { return &skills[i] }, func(s *Skill) string { return s.Path })
	prevs, modified, kept, err := p.compareRecord(ctx, want)
	if err != nil {
		return nil, err
	}
	conflict, err := p.refuse(skills, prevs, modified)
	if err != nil {
		return nil, err
	}
	var todo []*staged
	for i, s := range skills {
		if kept[s.Path] {
			p.result.Unchanged = append(p.result.Unchanged, s.Path)
			continue
		}
		todo = append(todo, newStaged(&skills[i]))
	}
	// Each staged skill's entry is settled as soon as it is written, and
	// its file list dropped: memory does not grow with the files staged.
	st := &stager{folder: p.folder, staging: p.staging, vars: p.vars, buf: make([]byte, stageBufferSize), merge: memoryMerger{p}, done: func(sk *staged) error {
		prev, ours := prevs[sk.skill.Path]
		return p.settle(sk, prev, ours, conflict[sk.skill.Path])
	}}
	if err := st.stage(ctx, todo, opts.Concurrency); err != nil {
		return nil, err
	}
	if err := p.spool.flush(); err != nil {
		return nil, errdefs.MarkLocal(err)
	}
	if err := p.sum(prevs); err != nil {
		return nil, err
	}
	return p, nil
}

// begin finishes or undoes an install a crash interrupted in the folder
// p holds the lock of, opens the folder and its record, and makes the
// staging directory and the spool of the next record.
func (p *pending) begin() (err error) {
	if p.result.Recovered, err = recoverJournal(p.journal, p.opts.LockDir); err != nil {
		return err
	}
	sweepMarkers(p.opts.LockDir)
	if err := p.open(); err != nil {
		return err
	}
	removeLeftovers(p.folder)
	if err := p.openRecord(); err != nil {
		return err
	}
	p.staging = layers.StagingPrefix + randomID()
	if err := p.folder.Mkdir(p.staging, 0o700); err != nil {
		return errdefs.MarkLocal(err)
	}
	if err := p.folder.Mkdir(filepath.Join(p.staging, previousDir), 0o700); err != nil {
		return errdefs.MarkLocal(err)
	}
	if p.spool, err = newSpool(p.folder, p.staging); err != nil {
		return errdefs.MarkLocal(err)
	}
	return nil
}

// compareRecord compares each skill of the record with the folder (see
// compared): a file whose size and modification time are as recorded is
// taken as recorded, unread. It returns the skills of the record, the
// ones the user changed, and the ones kept as they are.
func (p *pending) compareRecord(ctx context.Context, want pathIndex[*Skill]) (prevs map[string]recorded, modified []Drift, kept map[string]bool, err error) {
	prevs, kept = map[string]recorded{}, map[string]bool{}
	// Comparing a skill with the folder is mostly waiting on the file
	// system: several are compared at once while the record is read.
	g, gctx := errgroup.WithContext(ctx)
	type entry struct {
		name string
		s    *InstalledSkill
	}
	entries := make(chan entry, 64)
	var mu sync.Mutex
	for range driftWorkers {
		g.Go(func() error {
			for e := range entries {
				_, withDirs := e.s.Stat["./"]
				d, err := p.driftAndStat(e.name, e.s, withDirs)
				if err != nil {
					return errdefs.MarkLocal(err)
				}
				mu.Lock()
				err = p.compared(e.name, e.s, d, want.get(e.name), &modified, kept, withDirs)
				mu.Unlock()
				if err != nil {
					return err
				}
			}
			return nil
		})
	}
	err = p.readPrevious(func(name string, s *InstalledSkill) error {
		prevs[name] = recorded{digest: s.Digest, files: filesKey(s.Files),
			from: PackageVersion{Package: s.Package, Version: s.PackageVersion, Digest: s.PackageDigest}}
		if slices.Contains(p.opts.Keep, name) {
			p.keep = append(p.keep, name)
			return nil
		}
		select {
		case entries <- entry{name, s}:
			return nil
		case <-gctx.Done():
			return gctx.Err()
		}
	})
	close(entries)
	if werr := g.Wait(); werr != nil {
		return nil, nil, nil, werr
	}
	if err != nil {
		return nil, nil, nil, err
	}
	return prevs, modified, kept, nil
}

// refuse fails, unless opts.Force, when skills would replace skills of
// the user's (the folder holds them, the record does not) or changes the
// user made (modified); with Force, it returns the user's skills, which
// go to a backup.
func (p *pending) refuse(skills []Skill, prevs map[string]recorded, modified []Drift) (map[string]bool, error) {
	var conflicts []string
	conflict := map[string]bool{}
	for _, s := range skills {
		if _, ours := prevs[s.Path]; ours {
			continue
		}
		if _, err := p.folder.Lstat(s.Path); err == nil {
			conflicts = append(conflicts, s.Path)
			conflict[s.Path] = true
		}
	}
	if len(conflicts) > 0 && !p.opts.Force {
		return nil, errdefs.Precondition(&ConflictError{Dir: p.opts.Dir, Skills: conflicts})
	}
	slices.SortFunc(modified, func(a, b Drift) int { return strings.Compare(a.Skill, b.Skill) })
	if len(modified) > 0 && !p.opts.Force {
		return nil, errdefs.Precondition(&ModifiedError{Dir: p.opts.Dir, Skills: modified, Uninstall: len(skills) == 0})
	}
	for _, name := range conflicts {
		p.backups[name] = true
	}
	return conflict, nil
}

// sum completes the plan once every skill is staged: the skills of the
// record no longer installed are pruned, the record's unchanged entries
// spooled, and the result sorted.
func (p *pending) sum(prevs map[string]recorded) error {
	for name := range prevs {
		if !p.spool.has(name) && !p.verbatim[name] && !slices.Contains(p.keep, name) {
			p.prune = append(p.prune, name)
		}
	}
	// A record read from the folder is written in its new place even
	// when it does not change.
	if p.sameRecord = len(p.verbatim) == len(prevs) && p.spool.len() == 0 && !p.legacy && !p.statInRecord; !p.sameRecord {
		if err := p.spoolVerbatim(); err != nil {
			return err
		}
	}
	slices.Sort(p.prune)
	slices.SortFunc(p.result.Merged, func(a, b MergedFile) int { return strings.Compare(a.Skill, b.Skill) })
	for _, names := range [][]string{p.swaps, p.result.Installed, p.result.Updated, p.result.Unchanged, p.result.Replaced} {
		slices.Sort(names)
	}
	slices.SortFunc(p.result.Updates, func(a, b Update) int { return strings.Compare(a.Skill, b.Skill) })
	p.result.Removed = append(p.result.Removed, p.prune...)
	p.result.Kept = append(p.result.Kept, p.keep...)
	return nil
}

// driftWorkers is how many skills of the record are compared with the
// folder at once.
const driftWorkers = 4

// compared takes in how the folder holds a skill of its record. What the
// user changed in a skill stax installed is theirs: it is only replaced
// or removed with --force, and then kept in a backup. A skill the folder
// holds as recorded, from the same package digest and with the same paths
// substituted, stays as it is: neither its layer nor its files are read,
// and its entry goes to the next record as it was, or with the stat of
// its directories added when it had none (asRecorded false).
func (p *pending) compared(name string, s *InstalledSkill, d *Drift, sk *Skill, modified *[]Drift, kept map[string]bool, asRecorded bool) error {
	same := sk != nil && s.Digest == sk.Digest && varsHold(s.Vars, p.vars(sk)) && s.Stat != nil
	d = s.Compared(name, d, !same)
	if d != nil && sk != nil && !p.opts.Force && mergeable(d) {
		// Only MEMORY.md changed, and a version of the skill is being
		// installed: the user's entries are merged into it while it is
		// staged, and the skill is written again.
		p.merges[name] = memoryMerge{drift: *d, base: s.Memory.fieldBase()}
		return nil
	}
	if d != nil && !d.Missing {
		*modified = append(*modified, *d)
		p.backups[name] = true
	}
	if !same || d != nil {
		return nil
	}
	kept[name] = true
	if asRecorded && s.Package == sk.Package && s.PackageDigest == sk.PackageDigest && s.PackageVersion == sk.PackageVersion {
		// Spooled only if the record changes at all (see spoolVerbatim).
		p.verbatim[name] = true
		return nil
	}
	s.Package, s.PackageDigest, s.PackageVersion = sk.Package, sk.PackageDigest, sk.PackageVersion
	return errdefs.MarkLocal(p.spool.add(name, s))
}

// spoolVerbatim spools the entries the next record keeps as they are,
// read again from the record: an unchanged re-install, the most common
// install of all, then encodes no entry, and a changed one holds none of
// them in memory.
func (p *pending) spoolVerbatim() error {
	if len(p.verbatim) == 0 {
		return nil
	}
	d, err := p.scanRecordFile(func(name string, s *InstalledSkill) error {
		if !p.verbatim[name] {
			return nil
		}
		return errdefs.MarkLocal(p.spool.add(name, s))
	})
	if err == nil && d != p.previous {
		err = fmt.Errorf("%s changed while stax was installing: run the install again", p.recordPath)
	}
	return errdefs.MarkLocal(err) // a record's own errors keep their class
}

// recorded is what an install keeps of a skill of the folder's record.
type recorded struct {
	digest digest.Digest
	files  [sha256.Size]byte // filesKey of its files
	// from is the package it came from, for the update an install reports.
	from PackageVersion
}

// readPrevious hands each skill of the folder's record to each, and notes
// whether there was a record and its digest.
func (p *pending) readPrevious(each func(name string, s *InstalledSkill) error) error {
	d, err := p.scanRecordFile(each)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	p.hadRecord, p.previous = !p.legacy, d
	return nil
}

// scanRecordFile scans the folder's record (see scanRecord), and returns
// the digest of the whole file.
func (p *pending) scanRecordFile(each func(name string, s *InstalledSkill) error) (digest.Digest, error) {
	from, where := p.record, p.recordPath
	if p.legacy {
		from, where = p.folder, filepath.Join(p.opts.Dir, RecordFile)
	}
	f, err := from.Open(RecordFile)
	if errors.Is(err, fs.ErrNotExist) && from != p.folder {
		// Not yet in its new place: an older stax kept it in the folder.
		if f, err = p.folder.Open(RecordFile); err == nil {
			p.legacy, where = true, filepath.Join(p.opts.Dir, RecordFile)
		}
	}
	if errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	if err != nil {
		return "", errdefs.MarkLocal(err)
	}
	defer f.Close()
	cache := openStatCache(p.statPath)
	defer cache.close()
	withStat := func(name string, s *InstalledSkill) error {
		if s.Stat != nil {
			p.statInRecord = true
		} else {
			s.Stat = cache.lookup(name, s.Files)
		}
		return each(name, s)
	}
	h := digest.SHA256.Digester()
	if err := scanRecord(io.TeeReader(f, h.Hash()), where, withStat); err != nil {
		return "", err
	}
	// The decoder stops at the record's closing brace: what follows counts.
	if _, err := io.Copy(h.Hash(), f); err != nil {
		return "", errdefs.MarkLocal(err)
	}
	return h.Digest(), nil
}

// vars are the values substituted into s's SKILL.md in this folder.
func (p *pending) vars(s *Skill) substitute.Options {
	return pathVars(p.opts.Dir, s.Path, p.opts.Root, p.opts.Workspace, p.opts.Portable)
}

// pathVars are the values substituted into the SKILL.md of the skill
// skillPath in the folder dir: absolute paths, or with portable the
// skill's directory relative to root, in slashes so that Windows and Unix
// clones hold the same bytes, and "." for the workspace.
func pathVars(dir, skillPath, root, workspace string, portable bool) substitute.Options {
	absDir, err := filepath.Abs(filepath.Join(dir, skillPath))
	if err != nil {
		absDir = filepath.Join(dir, skillPath)
	}
	vars := substitute.Options{SkillDir: absDir, Workspace: workspace, KeepArguments: true}
	if !portable || root == "" {
		return vars
	}
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return vars
	}
	// A folder outside root is refused before anything is written.
	if rel, err := filepath.Rel(absRoot, absDir); err == nil && filepath.IsLocal(rel) {
		vars.SkillDir, vars.Workspace = filepath.ToSlash(rel), "."
	}
	return vars
}

// settle decides what a staged skill is to the folder (new, replacing a
// skill of the user's, updated, or unchanged after all), and spools its
// next record entry.
func (p *pending) settle(sk *staged, prev recorded, ours, conflict bool) error {
	s := sk.skill
	entry := InstalledSkill{Package: s.Package, PackageDigest: s.PackageDigest, PackageVersion: s.PackageVersion,
		Digest: s.Digest, Files: sk.files, Stat: sk.stat, Vars: varsKey(p.vars(s)), Memory: sk.memory}
	if sk.placeless {
		entry.Vars = placelessKey
	}
	switch {
	case conflict:
		p.result.Replaced = append(p.result.Replaced, s.Path)
		p.swaps = append(p.swaps, s.Path)
	case !ours:
		p.result.Installed = append(p.result.Installed, s.Path)
		p.swaps = append(p.swaps, s.Path)
	case prev.digest == s.Digest && prev.files == filesKey(sk.files) && !p.backups[s.Path] && present(p.folder, s.Path):
		// The files on disk are the ones recorded: keep their stat.
		entry.Stat = statTree(p.folder, s.Path, sk.files)
		if err := statDirs(p.folder, s.Path, entry.Stat); err != nil {
			return errdefs.MarkLocal(err)
		}
		p.result.Unchanged = append(p.result.Unchanged, s.Path)
	default:
		p.result.Updated = append(p.result.Updated, s.Path)
		p.result.Updates = append(p.result.Updates, Update{Skill: s.Path, From: prev.from,
			To: PackageVersion{Package: s.Package, Version: s.PackageVersion, Digest: s.PackageDigest}})
		p.swaps = append(p.swaps, s.Path)
	}
	sk.writing = nil
	return errdefs.MarkLocal(p.spool.add(s.Path, &entry))
}

// previousDir holds, in the staging directory, what an install replaces
// or prunes, until the install is committed. Skills are staged beside it,
// so it starts with a dot, as no skill's name can (layers.CheckName): an
// older stax named it "previous", and could not install a skill of that
// name. Its journals name each move in full, so a crash of the older stax
// is rolled back without this name, and its staging directory removed
// whole (removeLeftovers).
const previousDir = ".previous"

// open opens the confining root and the folder inside it, creating the
// folder if needed. A folder that is, or lies under, a symbolic link
// leading outside the root is refused by the kernel, not a string check.
func (p *pending) open() (err error) {
	if p.base, p.basePath, p.folderRel, err = openBase(p.opts.Root, p.opts.Dir); err != nil {
		return err
	}
	// The folder is made, with any directory above it that is missing
	// (.claude for .claude/skills), for the staging directory to live in;
	// close removes what it made again unless something was installed.
	if p.createdFrom, err = mkdirAll(p.base, p.folderRel); err != nil {
		p.removeCreated()
		return errdefs.MarkLocal(fmt.Errorf("create %s: %w", p.opts.Dir, err))
	}
	if p.folder, err = p.base.OpenRoot(p.folderRel); err != nil {
		p.removeCreated()
		if link := linkOnPath(p.base, p.basePath, p.folderRel); link != "" {
			return errdefs.MarkLocal(fmt.Errorf("%s, which install refuses (%w): make the folder a directory there, or a relative link to a directory inside %s", link, err, p.basePath))
		}
		return errdefs.MarkLocal(fmt.Errorf("open %s: %w (a symbolic link leading outside %s is refused: make the folder a directory there)", p.opts.Dir, err, p.basePath))
	}
	return nil
}

// linkOnPath describes the first symbolic link on the way from base to
// rel, the folder or a directory above it, with what it points to; ""
// when there is none. os.Root follows only links that are relative and
// stay inside it, so a dotfiles checkout linked in by its absolute path
// is refused as one leading outside, and the message says which it is.
func linkOnPath(base *os.Root, basePath, rel string) string {
	for i := 0; i <= len(rel); i++ {
		if i < len(rel) && rel[i] != filepath.Separator {
			continue
		}
		info, err := base.Lstat(rel[:i])
		if err != nil {
			return ""
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		link := filepath.Join(basePath, rel[:i])
		target, err := base.Readlink(rel[:i])
		switch {
		case err != nil:
			return fmt.Sprintf("%s is a symbolic link", link)
		case filepath.IsAbs(target):
			return fmt.Sprintf("%s is a symbolic link to the absolute path %s", link, target)
		}
		if filepath.IsLocal(filepath.Join(filepath.Dir(rel[:i]), target)) {
			continue // followed; a link further on is the one
		}
		return fmt.Sprintf("%s is a symbolic link to %s, outside %s", link, target, basePath)
	}
	return ""
}

// removeCreated removes the directories open made for the folder, the
// folder first, while they are empty: an install that installed nothing
// leaves the project as it found it.
func (p *pending) removeCreated() {
	removeMade(p.base, p.folderRel, p.createdFrom)
}

// mkdirAll makes the directory rel in base, and any missing above it, and
// returns the outermost it made: "" when rel was there. A failed install
// removes them again with removeMade, leaving the project as it was.
func mkdirAll(base *os.Root, rel string) (made string, err error) {
	if made = firstMissing(base, rel); made == "" {
		return "", nil
	}
	return made, base.MkdirAll(rel, 0o755)
}

// firstMissing returns the first directory of rel, from the top, that is
// not under base: the one mkdirAll would make; "" when rel is there.
func firstMissing(base *os.Root, rel string) string {
	for i := 0; i <= len(rel); i++ {
		if i < len(rel) && rel[i] != filepath.Separator {
			continue
		}
		if _, err := base.Lstat(rel[:i]); errors.Is(err, fs.ErrNotExist) {
			return rel[:i]
		}
	}
	return ""
}

// makeBackupDir creates rel, a backup directory under StateDir, whose
// first missing directory firstMissing said is made. When that is
// StateDir itself, it writes StateIgnore into it, so that git never shows
// the backups; a StateDir that was there is the user's, and so is any
// .gitignore in it.
func makeBackupDir(base *os.Root, rel, made string) error {
	if err := base.MkdirAll(rel, 0o755); err != nil {
		return err
	}
	if made != StateDir {
		return nil
	}
	f, err := base.OpenFile(filepath.Join(StateDir, StateIgnore), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(stateIgnoreContent)
	return errors.Join(err, f.Close())
}

// removeBackupDir removes, once the backups are moved back, what
// makeBackupDir made: the directories from made down to rel, while empty,
// and, when the transaction created StateDir (stateMade), StateDir with
// its StateIgnore once nothing else is left in it. Each folder of a
// transaction calls it; the last to be undone removes StateDir.
func removeBackupDir(base *os.Root, rel, made string, stateMade bool) {
	if rel == "" {
		return
	}
	removeMade(base, rel, made)
	if !stateMade {
		return
	}
	backups := filepath.FromSlash(BackupDir)
	// The transaction's own directory, then the backup directory.
	if txDir, ok := strings.CutPrefix(rel, backups+string(filepath.Separator)); ok {
		txDir, _, _ = strings.Cut(txDir, string(filepath.Separator))
		base.Remove(filepath.Join(backups, txDir))
	}
	base.Remove(backups)
	if d, err := base.Open(StateDir); err == nil {
		names, _ := d.Readdirnames(2)
		d.Close()
		if len(names) == 1 && names[0] == StateIgnore {
			base.Remove(filepath.Join(StateDir, StateIgnore))
			base.Remove(StateDir)
		}
	}
}

// removeMade removes rel, and the directories above it up to made (see
// mkdirAll), innermost first, while they are empty.
func removeMade(base *os.Root, rel, made string) {
	if made == "" {
		return
	}
	for dir := rel; base.Remove(dir) == nil && dir != made; dir = filepath.Dir(dir) {
	}
}

// checkConfined checks that dir, if it is there, lies inside root (the
// parent of dir when empty) as install opens it: a folder that is, or
// lies under, a symbolic link leading outside root is one install
// refuses, and what the link points to is not an install to vouch for.
func checkConfined(root, dir string) error {
	base, basePath, rel, err := openBase(root, dir)
	if err != nil {
		return err
	}
	defer base.Close()
	folder, err := base.OpenRoot(rel)
	switch {
	case err == nil:
		folder.Close()
		return nil
	case errors.Is(err, fs.ErrNotExist):
		return nil // nothing installed there
	}
	if info, serr := os.Stat(dir); serr == nil && info.IsDir() {
		// A directory that opens by its path but not inside root is
		// reached through a link leading out of it.
		if link := linkOnPath(base, basePath, rel); link != "" {
			return errdefs.MarkDataLoss(fmt.Errorf("%s, which install refuses: what it points to is not verified (%w); make the folder a directory there, or a relative link to a directory inside %s, and install again", link, err, basePath))
		}
		return errdefs.MarkDataLoss(fmt.Errorf("%s leads outside %s through a symbolic link, which install refuses: what it points to is not verified (%w); make the folder a directory there and install again", dir, basePath, err))
	}
	return errdefs.MarkLocal(fmt.Errorf("open %s: %w", dir, err))
}

// openBase opens the directory that confines every change to dir: root,
// or the parent of dir when root is empty. It returns the root opened,
// its absolute path, and dir relative to it.
func openBase(root, dir string) (base *os.Root, basePath, rel string, err error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, "", "", errdefs.MarkLocal(err)
	}
	basePath = root
	if basePath == "" {
		basePath = filepath.Dir(abs)
	}
	if basePath, err = filepath.Abs(basePath); err != nil {
		return nil, "", "", errdefs.MarkLocal(err)
	}
	rel, err = filepath.Rel(basePath, abs)
	if err != nil || !filepath.IsLocal(rel) {
		return nil, "", "", errdefs.MarkLocal(fmt.Errorf("%s is not inside %s: stax installs only there", dir, basePath))
	}
	if base, err = os.OpenRoot(basePath); err != nil {
		return nil, "", "", errdefs.MarkLocal(err)
	}
	return base, basePath, rel, nil
}

// commit swaps the staged skills in, prunes, and writes the record, after
// writing the journal that lets a later run undo any of it.
func (p *pending) commit(tx *transaction, files []*lockChange) error {
	moves := p.planMoves(tx)
	j := &journalData{
		ID: tx.id, Base: p.basePath, Folder: p.folderRel, Staging: p.staging,
		Moves: moves, HadRecord: p.hadRecord, Files: files, RecordDir: p.recordDir,
		Backup: p.backupRel, BackupMade: p.backupMade, StateMade: p.stateMade,
	}
	sameRecord := p.sameRecord
	if !sameRecord {
		record, err := p.spool.digest()
		if err != nil {
			return errdefs.MarkLocal(fmt.Errorf("encode the record: %w", err))
		}
		sameRecord = record == p.previous && !p.legacy
	}
	p.committing = true
	changing := slices.ContainsFunc(files, (*lockChange).changes)
	if len(moves) == 0 && sameRecord && !changing {
		// Nothing in the folder changes, nor a file: no journal,
		// nothing to undo.
		return nil
	}
	if err := p.journalize(j, files); err != nil {
		return err
	}
	if p.backupRel != "" {
		if err := makeBackupDir(p.base, p.backupRel, p.backupMade); err != nil {
			return errdefs.MarkLocal(fmt.Errorf("create the backup directory: %w", err))
		}
	}
	for _, m := range moves {
		err := step("move " + m[1])
		if err == nil {
			err = p.base.Rename(m[0], m[1])
		}
		if err != nil {
			return errdefs.MarkLocal(fmt.Errorf("move %s: %w", m[0], err))
		}
		p.moves = append(p.moves, m)
	}
	if err := step("record " + p.opts.Dir); err != nil {
		return errdefs.MarkLocal(err)
	}
	if sameRecord {
		return nil
	}
	if err := p.spool.write(p.record); err != nil {
		return err
	}
	p.recordWritten = true
	return nil
}

// planMoves are the renames, relative to the base, that commit makes:
// pruned and replaced skills aside (or to this install's backup, for the
// user's), staged ones in. A backup directory is noted for the journal,
// not made.
func (p *pending) planMoves(tx *transaction) [][2]string {
	backupRel := filepath.Join(BackupDir, tx.id, p.folderRel)
	var moves [][2]string
	in := func(names ...string) string { return filepath.Join(append([]string{p.folderRel}, names...)...) }
	aside := func(name string) {
		if _, err := p.folder.Lstat(name); err != nil {
			return
		}
		to := in(p.staging, previousDir, name)
		if p.backups[name] {
			to = filepath.Join(backupRel, name)
			p.result.Backups = append(p.result.Backups, filepath.Join(p.basePath, to))
		}
		moves = append(moves, [2]string{in(name), to})
	}
	for _, name := range p.prune {
		aside(name)
	}
	for _, name := range p.swaps {
		aside(name)
		moves = append(moves, [2]string{in(p.staging, name), in(name)})
	}
	if len(p.result.Backups) > 0 {
		// Created once the journal says so, for a crash to undo.
		p.backupRel = backupRel
		p.backupMade = firstMissing(p.base, backupRel)
		p.stateMade = tx.createsStateDir(p.basePath, p.backupMade == StateDir)
	}
	return moves
}

// journalize keeps copies of the files that change and of the record as
// they were, then writes the journal j: from there on, a crash is undone
// by the next run.
func (p *pending) journalize(j *journalData, files []*lockChange) error {
	for _, lc := range files {
		if !lc.changes() {
			continue
		}
		if err := lc.keep(p.folder, p.staging); err != nil {
			return errdefs.MarkLocal(fmt.Errorf("keep a copy of %s: %w", lc.Path, err))
		}
	}
	if p.hadRecord {
		// The record as it was, for a rollback to put back.
		if err := p.keepRecord(); err != nil {
			return errdefs.MarkLocal(fmt.Errorf("keep a copy of %s: %w", RecordFile, err))
		}
		p.recordCopied, j.RecordCopied = true, true
	}
	if err := step("journal"); err != nil {
		return errdefs.MarkLocal(err)
	}
	if err := writeJournal(p.journal, j); err != nil {
		return errdefs.MarkLocal(fmt.Errorf("write the install journal: %w", err))
	}
	p.journaled = true
	return nil
}

// keepRecord copies the folder's record into the staging directory, and
// checks that it is still the record as it was read.
func (p *pending) keepRecord() error {
	f, err := p.record.Open(RecordFile)
	if err != nil {
		return err
	}
	defer f.Close()
	d, err := keepCopy(p.folder, previousRecord(p.staging), f)
	if err == nil && d != p.previous {
		err = fmt.Errorf("it changed while stax was installing")
	}
	return err
}

// rollback puts back what commit changed: the skills it moved, and the
// record as it was. It reports what it could not put back; the journal is
// then kept, so that the next run finishes undoing it.
func (p *pending) rollback() error {
	if !p.committing {
		return nil
	}
	err := undoMoves(p.base, p.moves)
	p.moves = nil
	// The backup directories this install made, now empty; plans are
	// rolled back last first, so the directories one made for another's
	// are empty by its turn.
	removeBackupDir(p.base, p.backupRel, p.backupMade, p.stateMade)
	if p.recordCopied || !p.hadRecord {
		err = errors.Join(err, restoreRecord(p.folder, p.record, p.hadRecord, previousRecord(p.staging), nil))
	}
	if err != nil {
		return fmt.Errorf("%s: %w", p.opts.Dir, err)
	}
	os.Remove(p.journal)
	p.committing = false
	p.result.Backups = []string{}
	return nil
}

// rollbackFiles puts back the files written, then rolls back plans (see
// rollbackAll): the files first, since the folders' journals, which a
// rollback removes, are what the next run would restore them from.
func rollbackFiles(plans []*pending, written []*lockChange, err error) error {
	if len(plans) == 0 {
		return err // no folder holds a copy of the files to put back
	}
	if rerr := restoreFiles(plans[0].folder, plans[0].staging, written); rerr != nil {
		return fmt.Errorf("%w; and the files could not be put back (the next stax run puts them back): %w", err, rerr)
	}
	return rollbackAll(plans, err, true)
}

// rollbackAll rolls back plans, last first, and adds to err what could
// not be put back; when everything was and say is set, it says so.
func rollbackAll(plans []*pending, err error, say bool) error {
	var failed []error
	for j := len(plans) - 1; j >= 0; j-- {
		if rerr := plans[j].rollback(); rerr != nil {
			failed = append(failed, rerr)
		}
	}
	if len(failed) == 0 {
		if say {
			return fmt.Errorf("%w; the skills were put back as they were", err)
		}
		return err
	}
	return fmt.Errorf("%w; and the install could not be fully undone (the next stax run finishes undoing it): %w", err, errors.Join(failed...))
}

// finish drops what the committed install replaced, and its journal.
func (p *pending) finish() {
	if !p.sameRecord {
		p.spool.writeStat(p.statPath)
	}
	p.folder.RemoveAll(p.staging)
	os.Remove(p.journal)
	p.dropLegacyRecord()
	p.finished, p.committing = true, false
}

// close removes the staging directory, and the folder itself if prepare
// made it and nothing was installed; then it releases the folder's lock.
// A transaction neither finished nor rolled back (a panic) is left to the
// journal, as a crash would be.
func (p *pending) close() {
	p.spool.close()
	if p.record != nil && p.record != p.folder && !p.committing {
		p.record.Close()
		// Only while empty: nothing was recorded there.
		RemoveMade(p.recordMade)
	}
	if p.folder != nil && !p.committing {
		if p.staging != "" && !p.finished {
			p.folder.RemoveAll(p.staging)
		}
		p.folder.Close()
		p.removeCreated()
	}
	if p.base != nil {
		p.base.Close()
	}
	if p.unlock != nil {
		p.unlock()
	}
}

// journalSuffix ends the name of a folder's journal in the lock
// directory, after the key its lock is named by.
const journalSuffix = ".journal.json"

// lockFolder takes the install lock of a folder, waiting while another
// stax holds it, until ctx ends. The lock file is named after the folder's
// absolute path, in lockDir, as is the folder's journal.
func lockFolder(ctx context.Context, lockDir, dir string) (unlock func(), journal string, err error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, "", errdefs.MarkLocal(err)
	}
	key := digest.FromString(abs).Encoded()[:32]
	unlock, err = filelock.Lock(ctx, lockDir, key+".lock", "install into "+dir, nil)
	if err != nil {
		return nil, "", err
	}
	return unlock, filepath.Join(lockDir, key+journalSuffix), nil
}

// removeLeftovers removes what a killed run left in the folder: staging
// directories and half-written records, all under names stax reserves.
// The caller holds the folder's lock, so no live run owns them.
func removeLeftovers(folder *os.Root) {
	f, err := folder.Open(".")
	if err != nil {
		return
	}
	names, _ := f.Readdirnames(-1)
	f.Close()
	for _, name := range names {
		if strings.HasPrefix(name, layers.StagingPrefix) || strings.HasPrefix(name, "."+RecordFile) {
			folder.RemoveAll(name)
		}
	}
}

func randomID() string {
	b := make([]byte, 6)
	rand.Read(b)
	return time.Now().UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b)
}

// present reports whether the folder holds name.
func present(folder *os.Root, name string) bool {
	_, err := folder.Lstat(name)
	return err == nil
}
