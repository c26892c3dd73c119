// Package install writes a merged set of skills into the folder an agent
// runtime reads, next to the user's own skills and without ever touching
// them: stax records what it installs, replaces and prunes only that, and
// swaps a whole install in at once, rolling back if any step fails.
package install

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gofrs/flock"
	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/exitcode"
	"github.com/stax-dev/stax/pkg/skill"
	"github.com/stax-dev/stax/pkg/substitute"
)

// Skill is a skill to install.
type Skill struct {
	// Path is the skill's directory name in the folder.
	Path string
	// Source is a directory holding the skill's files.
	Source        string
	Package       string
	PackageDigest digest.Digest
	Digest        digest.Digest
}

// Options say where and how to install.
type Options struct {
	// Dir is the folder the runtime reads skills from.
	Dir string
	// Workspace replaces ${STAX_WORKSPACE} in SKILL.md; empty leaves it.
	Workspace string
	// Force replaces skills of the user's that have the name of one being
	// installed.
	Force bool
	// LockDir holds the locks that serialize installs into one folder,
	// kept out of the folder so a refused install leaves no trace there.
	LockDir string
}

// Result says what an install changed in one folder.
type Result struct {
	Dir       string   `json:"dir"`
	Installed []string `json:"installed"`
	Updated   []string `json:"updated"`
	Unchanged []string `json:"unchanged"`
	Removed   []string `json:"removed"`
	// Replaced are skills of the user's that --force replaced.
	Replaced []string `json:"replaced"`
}

// ConflictError lists skills in a folder that stax did not install and an
// install would replace.
type ConflictError struct {
	Dir    string
	Skills []string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("%s already holds %s, which stax did not install: rename or remove them, or pass --force to replace them",
		e.Dir, strings.Join(e.Skills, ", "))
}

// Install makes opts.Dir hold exactly skills among the skills stax manages
// there: new ones are added, changed ones replaced, ones it installed
// before and no longer in the set removed. The user's own skills stay.
func Install(ctx context.Context, skills []Skill, opts Options) (*Result, error) {
	plan, err := Prepare(ctx, skills, opts)
	if err != nil {
		return nil, err
	}
	defer plan.Close()
	if err := plan.Commit(); err != nil {
		return nil, err
	}
	return plan.Result, nil
}

// Plan is an install into one folder, staged and ready to swap in. Several
// plans let an install into several folders be all or nothing: prepare
// them all, commit them all, and roll back the committed ones if one
// fails. A plan holds the folder's lock until Close.
type Plan struct {
	Result  *Result
	dir     string
	staging string
	backup  string
	swaps   []string
	prune   []string
	next    *Record
	// previous is the record file as it was, nil when there was none.
	previous []byte
	moves    *mover
	unlock   func()
	// created says Prepare made the folder, so a failed install removes it.
	created bool
}

// Prepare locks opts.Dir, refuses to touch skills of the user's (unless
// opts.Force), and stages every new or changed skill beside the folder.
// Nothing in the folder changes until Commit.
func Prepare(ctx context.Context, skills []Skill, opts Options) (_ *Plan, err error) {
	unlock, err := lockFolder(ctx, opts.LockDir, opts.Dir)
	if err != nil {
		return nil, err
	}
	p := &Plan{dir: opts.Dir, unlock: unlock, moves: &mover{}}
	defer func() {
		if err != nil {
			p.Close()
		}
	}()
	rec, err := readRecord(opts.Dir)
	if err != nil {
		return nil, err
	}
	if p.previous, err = os.ReadFile(filepath.Join(opts.Dir, RecordFile)); errors.Is(err, fs.ErrNotExist) {
		p.previous, err = nil, nil
	}
	if err != nil {
		return nil, exitcode.Wrap(exitcode.FileSystem, err)
	}
	res := &Result{Dir: opts.Dir, Installed: []string{}, Updated: []string{}, Unchanged: []string{}, Removed: []string{}, Replaced: []string{}}
	p.Result = res
	var conflicts []string
	for _, s := range skills {
		if _, ours := rec.Skills[s.Path]; ours {
			continue
		}
		if _, err := os.Lstat(filepath.Join(opts.Dir, s.Path)); err == nil {
			conflicts = append(conflicts, s.Path)
		}
	}
	if len(conflicts) > 0 && !opts.Force {
		return nil, exitcode.Wrap(exitcode.Materialization, &ConflictError{Dir: opts.Dir, Skills: conflicts})
	}

	if _, err := os.Stat(opts.Dir); errors.Is(err, fs.ErrNotExist) {
		p.created = true
	}
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return nil, exitcode.Wrap(exitcode.FileSystem, fmt.Errorf("create %s: %w", opts.Dir, err))
	}
	if p.staging, err = os.MkdirTemp(opts.Dir, layers.StagingPrefix); err != nil {
		return nil, exitcode.Wrap(exitcode.FileSystem, err)
	}
	p.backup = filepath.Join(p.staging, ".previous")
	if err := os.Mkdir(p.backup, 0o755); err != nil {
		return nil, exitcode.Wrap(exitcode.FileSystem, err)
	}

	p.next = &Record{InstalledBy: "stax", Skills: map[string]InstalledSkill{}}
	for _, s := range skills {
		staged := filepath.Join(p.staging, s.Path)
		absDir, err := filepath.Abs(filepath.Join(opts.Dir, s.Path))
		if err != nil {
			return nil, exitcode.Wrap(exitcode.FileSystem, err)
		}
		vars := substitute.Options{SkillDir: absDir, Workspace: opts.Workspace, KeepArguments: true}
		if err := copySkill(s.Source, staged, vars); err != nil {
			return nil, exitcode.Wrap(exitcode.FileSystem, fmt.Errorf("stage skill %s: %w", s.Path, err))
		}
		files, err := hashTree(staged)
		if err != nil {
			return nil, exitcode.Wrap(exitcode.FileSystem, err)
		}
		p.next.Skills[s.Path] = InstalledSkill{Package: s.Package, PackageDigest: s.PackageDigest, Digest: s.Digest, Files: files}
		switch prev, ours := rec.Skills[s.Path]; {
		case slices.Contains(conflicts, s.Path):
			res.Replaced = append(res.Replaced, s.Path)
			p.swaps = append(p.swaps, s.Path)
		case !ours:
			res.Installed = append(res.Installed, s.Path)
			p.swaps = append(p.swaps, s.Path)
		case prev.Digest == s.Digest && maps.Equal(prev.Files, files) && onDisk(opts.Dir, s.Path, files):
			res.Unchanged = append(res.Unchanged, s.Path)
		default:
			res.Updated = append(res.Updated, s.Path)
			p.swaps = append(p.swaps, s.Path)
		}
	}
	for name := range rec.Skills {
		if _, keep := p.next.Skills[name]; !keep {
			p.prune = append(p.prune, name)
		}
	}
	slices.Sort(p.prune)
	res.Removed = append(res.Removed, p.prune...)
	return p, nil
}

// Commit swaps the staged skills in, prunes, and writes the record. On
// failure the folder is put back as it was.
func (p *Plan) Commit() error {
	for _, name := range p.prune {
		if err := p.moves.aside(filepath.Join(p.dir, name), filepath.Join(p.backup, name)); err != nil {
			p.Rollback()
			return exitcode.Wrap(exitcode.FileSystem, fmt.Errorf("remove skill %s: %w", name, err))
		}
	}
	for _, name := range p.swaps {
		target := filepath.Join(p.dir, name)
		if err := p.moves.aside(target, filepath.Join(p.backup, name)); err != nil {
			p.Rollback()
			return exitcode.Wrap(exitcode.FileSystem, fmt.Errorf("replace skill %s: %w", name, err))
		}
		if err := p.moves.move(filepath.Join(p.staging, name), target); err != nil {
			p.Rollback()
			return exitcode.Wrap(exitcode.FileSystem, fmt.Errorf("install skill %s: %w", name, err))
		}
	}
	if err := p.next.write(p.dir); err != nil {
		p.Rollback()
		return err
	}
	return nil
}

// Rollback puts back what Commit changed: the skills it moved, and the
// record as it was. It is for a commit that another folder's failure
// undoes, as much as for Commit's own failures.
func (p *Plan) Rollback() {
	p.moves.rollback()
	p.moves = &mover{}
	record := filepath.Join(p.dir, RecordFile)
	if p.previous == nil {
		os.Remove(record)
		return
	}
	os.WriteFile(record, p.previous, 0o644)
}

// Close removes the staging directory, with the previous versions of
// replaced skills, and the folder itself if Prepare made it and nothing
// was installed; then it releases the folder's lock.
func (p *Plan) Close() {
	if p.staging != "" {
		os.RemoveAll(p.staging)
	}
	if p.created {
		os.Remove(p.dir) // only succeeds when empty
	}
	if p.unlock != nil {
		p.unlock()
	}
}

// Uninstall removes what stax installed in dir, and only that.
func Uninstall(ctx context.Context, dir, lockDir string) ([]string, error) {
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return []string{}, nil
	}
	unlock, err := lockFolder(ctx, lockDir, dir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	rec, err := readRecord(dir)
	if err != nil {
		return nil, err
	}
	removed := []string{}
	for _, name := range slices.Sorted(maps.Keys(rec.Skills)) {
		if err := os.RemoveAll(filepath.Join(dir, name)); err != nil {
			return removed, exitcode.Wrap(exitcode.FileSystem, fmt.Errorf("remove skill %s: %w", name, err))
		}
		delete(rec.Skills, name)
		removed = append(removed, name)
	}
	if err := os.Remove(filepath.Join(dir, RecordFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return removed, exitcode.Wrap(exitcode.FileSystem, err)
	}
	return removed, nil
}

// lockFolder takes the install lock of a folder, waiting while another
// stax holds it, until ctx ends. The lock file is named after the folder's
// absolute path, in lockDir.
func lockFolder(ctx context.Context, lockDir, dir string) (func(), error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, exitcode.Wrap(exitcode.FileSystem, err)
	}
	if err := os.MkdirAll(lockDir, 0o755); err != nil {
		return nil, exitcode.Wrap(exitcode.FileSystem, fmt.Errorf("create lock directory: %w", err))
	}
	path := filepath.Join(lockDir, digest.FromString(abs).Encoded()[:32]+".lock")
	lock := flock.New(path)
	ok, err := lock.TryLockContext(ctx, 50*time.Millisecond)
	if err != nil || !ok {
		return nil, exitcode.Wrap(exitcode.FileSystem, fmt.Errorf("another stax install into %s holds %s: %v", dir, path, err))
	}
	return func() { lock.Unlock() }, nil
}

// mover renames paths and can put them all back.
type mover struct{ done [][2]string }

// aside moves from to to when from exists.
func (m *mover) aside(from, to string) error {
	if _, err := os.Lstat(from); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return m.move(from, to)
}

func (m *mover) move(from, to string) error {
	if err := os.Rename(from, to); err != nil {
		return err
	}
	m.done = append(m.done, [2]string{from, to})
	return nil
}

func (m *mover) rollback() {
	for i := len(m.done) - 1; i >= 0; i-- {
		os.Rename(m.done[i][1], m.done[i][0])
	}
}

// copySkill copies a skill directory, resolving the path variables in its
// SKILL.md. Modes are normalized as in a layer: 0755 for directories and
// executables, 0644 otherwise.
func copySkill(src, dst string, vars substitute.Options) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if !info.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file", p)
		}
		mode := fs.FileMode(0o644)
		if info.Mode()&0o111 != 0 {
			mode = 0o755
		}
		if rel == skill.FileName {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return writeFile(target, strings.NewReader(substitute.Apply(string(data), vars)), mode)
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		return writeFile(target, in, mode)
	})
}

func writeFile(path string, r io.Reader, mode fs.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// onDisk reports whether the installed skill still holds exactly files.
func onDisk(dir, name string, files map[string]string) bool {
	got, err := hashTree(filepath.Join(dir, name))
	return err == nil && maps.Equal(got, files)
}
