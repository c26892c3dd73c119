package install

import (
	"crypto/sha256"
	"errors"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/opencontainers/go-digest"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/substitute"

	"github.com/stax-dev/stax/layers"
)

// RecordFile is where stax records, in each folder it installs into, what
// it installed there. Only what the record names is ever replaced or
// removed.
const RecordFile = ".stax-install.json"

// Record is the content of RecordFile.
type Record struct {
	InstalledBy string `json:"installedBy"`
	// Skills are keyed by directory name.
	Skills map[string]InstalledSkill `json:"skills"`
}

// Digests are the content digests of the recorded skills, by directory
// name.
func (r *Record) Digests() map[string]digest.Digest {
	out := make(map[string]digest.Digest, len(r.Skills))
	for name, s := range r.Skills {
		out[name] = s.Digest
	}
	return out
}

// InstalledSkill is one skill stax installed.
type InstalledSkill struct {
	Package       string        `json:"package"`
	PackageDigest digest.Digest `json:"packageDigest"`
	// PackageVersion is the package's version; empty in records written
	// before it was recorded, and for a package without one.
	PackageVersion string `json:"packageVersion,omitempty"`
	// Digest is the skill's digest in its package.
	Digest digest.Digest `json:"digest"`
	// Files are the files as written (after variable substitution), path
	// relative to the skill directory → "<mode> <digest>".
	Files map[string]string `json:"files"`
	// Stat holds each file's "<size> <modification time in ns>" as
	// written: a re-install reads only files whose stat differs.
	Stat map[string]string `json:"stat,omitempty"`
	// Vars identifies the paths substituted into SKILL.md; a skill
	// installed for other paths is written again.
	Vars string `json:"vars,omitempty"`
}

// readRecord reads the folder's record; an empty one when there is none.
// The record is a file in the project, which anyone who can change the
// project can write: every skill name in it must pass the name rule
// before stax uses it as a path, or nothing is done (exit 2).
func readRecord(folder *os.Root, where string) (*Record, error) {
	r := &Record{InstalledBy: "stax", Skills: map[string]InstalledSkill{}}
	f, err := folder.Open(RecordFile)
	if errors.Is(err, fs.ErrNotExist) {
		return r, nil
	}
	if err != nil {
		return nil, errdefs.IO(err)
	}
	defer f.Close()
	err = scanRecord(f, where, func(name string, s *InstalledSkill) error {
		r.Skills[name] = *s
		return nil
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// ReadRecord returns what stax installed in dir; an empty record when
// nothing.
func ReadRecord(dir string) (*Record, error) {
	folder, err := os.OpenRoot(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return &Record{InstalledBy: "stax", Skills: map[string]InstalledSkill{}}, nil
	}
	if err != nil {
		return nil, errdefs.IO(err)
	}
	defer folder.Close()
	return readRecord(folder, filepath.Join(dir, RecordFile))
}

// hashTree lists the files of the skill directory name in folder as
// InstalledSkill.Files does. With known, a file it records with the size
// and modification time the file has now is taken as recorded, unread;
// and a directory it records with the modification time it has now holds
// the entries it recorded (adding, removing or renaming an entry changes
// a directory's time), so it is not listed again: an unchanged re-install
// then costs a stat a file and a directory. info is the skill directory's
// own stat, which the caller took.
func hashTree(folder *os.Root, name string, info fs.FileInfo, known *InstalledSkill) (map[string]string, error) {
	files := map[string]string{}
	var recorded map[string][]string // directory → the names recorded in it
	if known != nil {
		recorded = map[string][]string{}
		for f := range known.Files {
			dir, base := splitPath(f)
			recorded[dir] = append(recorded[dir], base)
		}
		for k := range known.Stat {
			if d, ok := strings.CutSuffix(k, "/"); ok && d != "." {
				dir, base := splitPath(d)
				recorded[dir] = append(recorded[dir], base)
			}
		}
	}
	var buf []byte
	// Each directory is opened as a root of its own, so that a stat in it
	// is one call, not one for every directory of its path; its own stat
	// is the one its parent took of it just before it was opened.
	var walk func(in *os.Root, dir string, self fs.FileInfo) error
	walk = func(in *os.Root, dir string, self fs.FileInfo) error {
		var names []string
		listed := false
		if want, ok := known.statOf(dir + "/"); ok && hasStatKey(self, want) {
			names, listed = recorded[dir], true
		}
		if !listed {
			entries, err := fs.ReadDir(in.FS(), ".")
			if err != nil {
				return err
			}
			for _, e := range entries {
				names = append(names, e.Name())
			}
		}
		for _, n := range names {
			rel := path.Join(dir, n)
			info, err := in.Lstat(n)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return err
			}
			switch {
			case info.IsDir():
				sub, err := in.OpenRoot(n)
				if err != nil {
					return err
				}
				err = walk(sub, rel, info)
				sub.Close()
				if err != nil {
					return err
				}
				continue
			case !info.Mode().IsRegular():
				files[rel] = "not a regular file"
				continue
			}
			if want, ok := known.statOf(rel); ok && hasStatKey(info, want) {
				mode := layers.FileDigest{Executable: info.Mode()&0o111 != 0}.Mode()
				if entry := known.Files[rel]; len(entry) > len(mode) && entry[:len(mode)] == mode && entry[len(mode)] == ' ' {
					files[rel] = entry
					continue
				}
			}
			if buf == nil {
				buf = make([]byte, 64<<10)
			}
			entry, err := hashFile(in, n, buf)
			if err != nil {
				return err
			}
			files[rel] = entry
		}
		return nil
	}
	root, err := folder.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return files, walk(root, ".", info)
}

// statOf is the recorded stat of a file, or of a directory with its
// slash; none without a record.
func (s *InstalledSkill) statOf(key string) (string, bool) {
	if s == nil {
		return "", false
	}
	v, ok := s.Stat[key]
	return v, ok && v != ""
}

// splitPath splits a slash path inside a skill into its directory ("."
// at the top) and last element.
func splitPath(p string) (dir, base string) {
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return ".", p
	}
	return p[:i], p[i+1:]
}

// hashFile is the Files entry of the file name in dir.
func hashFile(dir *os.Root, name string, buf []byte) (string, error) {
	f, err := dir.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return "", err
	}
	h := sha256.New()
	if _, err := io.CopyBuffer(h, f, buf); err != nil {
		return "", err
	}
	return fileEntry(info.Mode(), digest.NewDigest(digest.SHA256, h)), nil
}

// statDirs adds to stat the stat of every directory of the skill name in
// folder, the skill's own as "./", each under its slash path and a slash.
func statDirs(folder *os.Root, name string, stat map[string]string) error {
	return fs.WalkDir(folder.FS(), name, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel := "."
		if p != name {
			rel = strings.TrimPrefix(p, name+"/")
		}
		stat[rel+"/"] = statKey(info)
		return nil
	})
}

// statTree is InstalledSkill.Stat of the files of a skill in the folder.
func statTree(folder *os.Root, name string, files map[string]string) map[string]string {
	stat := make(map[string]string, len(files))
	for rel := range files {
		if info, err := folder.Lstat(filepath.Join(name, filepath.FromSlash(rel))); err == nil {
			stat[rel] = statKey(info)
		}
	}
	return stat
}

func fileEntry(mode fs.FileMode, d digest.Digest) string {
	return layers.FileDigest{Executable: mode&0o111 != 0, Digest: d}.Record()
}

// Drift is how an installed skill differs from its record.
type Drift struct {
	Skill   string   `json:"skill"`
	Added   []string `json:"added"`
	Removed []string `json:"removed"`
	Changed []string `json:"changed"`
	Missing bool     `json:"missing,omitempty"`
	// Relocated is a skill whose SKILL.md was written for another place:
	// the paths substituted into it are not the ones an install here
	// would write, as when a user-scope install moved with its home.
	Relocated bool `json:"relocated,omitempty"`
}

func (d Drift) describe() string {
	if d.Missing {
		return "missing"
	}
	if d.Relocated {
		return "written for another place: its " + substitute.SkillDir + " or " + substitute.Workspace + " is not this one"
	}
	var parts []string
	for _, g := range []struct {
		what  string
		files []string
	}{{"changed", d.Changed}, {"added", d.Added}, {"removed", d.Removed}} {
		if len(g.files) > 0 {
			parts = append(parts, g.what+" "+strings.Join(g.files, ", "))
		}
	}
	return strings.Join(parts, "; ")
}

// drift compares one recorded skill with the folder; nil when they agree.
// With trustStat, files whose size and modification time are as recorded
// are not read.
func drift(folder *os.Root, name string, want InstalledSkill, trustStat bool) (*Drift, error) {
	d := &Drift{Skill: name, Added: []string{}, Removed: []string{}, Changed: []string{}}
	info, err := folder.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		d.Missing = true
		return d, nil
	}
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		// A file or a link where the skill was is the user's doing.
		d.Changed = append(d.Changed, path.Base(name))
		return d, nil
	}
	var known *InstalledSkill
	if trustStat {
		known = &want
	}
	got, err := hashTree(folder, name, info, known)
	if err != nil {
		return nil, err
	}
	if maps.Equal(got, want.Files) {
		return nil, nil
	}
	for _, f := range slices.Sorted(maps.Keys(want.Files)) {
		g, ok := got[f]
		switch {
		case !ok:
			d.Removed = append(d.Removed, f)
		case g != want.Files[f]:
			d.Changed = append(d.Changed, f)
		}
	}
	for _, f := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want.Files[f]; !ok {
			d.Added = append(d.Added, f)
		}
	}
	if len(d.Added)+len(d.Removed)+len(d.Changed) == 0 {
		return nil, nil
	}
	return d, nil
}

// Check compares the skills recorded in dir with the files on disk.
func Check(dir string) ([]Drift, error) {
	folder, err := os.OpenRoot(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, errdefs.IO(err)
	}
	defer folder.Close()
	rec, err := readRecord(folder, filepath.Join(dir, RecordFile))
	if err != nil {
		return nil, err
	}
	var drifts []Drift
	for _, name := range slices.Sorted(maps.Keys(rec.Skills)) {
		d, err := drift(folder, name, rec.Skills[name], false)
		if err != nil {
			return nil, errdefs.IO(err)
		}
		if d != nil {
			drifts = append(drifts, *d)
		}
	}
	return drifts, nil
}
