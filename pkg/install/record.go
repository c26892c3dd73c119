package install

import (
	"crypto/sha256"
	"errors"
	"fmt"
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
	"github.com/stax-dev/stax/pkg/stateful"
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
	// Memory is what the install knew of the skill's MEMORY.md as its
	// package brought it, the base the merge of a later update compares
	// the user's copy and the new version's with; absent for a skill
	// without one, and in records of an older stax.
	Memory *InstalledMemory `json:"memory,omitempty"`
	// SkillFile is the skill's SKILL.md as WriteFolderFiles wrote it, nil
	// when over skill.MaxFileSize; never part of a record.
	SkillFile []byte `json:"-"`
}

// InstalledMemory is what a record keeps of a skill's MEMORY.md: digests,
// the same on every machine, and a few of them, in a file users commit.
type InstalledMemory struct {
	// Fields are the digests of its frontmatter fields' values, by name,
	// but for version and lastUpdated, which an install sets (see
	// stateful.FieldDigests).
	Fields stateful.FieldBase `json:"fields"`
	// Merged is set when the MEMORY.md written is the package's merged
	// with the user's entries or fields (see MergedFile), which the record
	// holds as installed: writing the file again, or removing it, is then
	// replacing a change of the user's.
	Merged bool `json:"merged,omitempty"`
}

// merged reports whether m is of a MEMORY.md merged with the user's.
func (m *InstalledMemory) merged() bool { return m != nil && m.Merged }

// fieldBase is the base of a merge of the MEMORY.md m describes: nil, not
// known, without one.
func (m *InstalledMemory) fieldBase() stateful.FieldBase {
	if m == nil {
		return nil
	}
	if m.Fields == nil {
		return stateful.FieldBase{}
	}
	return m.Fields
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
		return nil, errdefs.MarkLocal(err)
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

// ReadRecordIn returns what stax installed in dir, as the record kept in
// recordDir says (see RecordDir), or the folder's own when recordDir is
// "" or holds none yet; an empty record when nothing.
func ReadRecordIn(dir, recordDir string) (*Record, error) {
	from, where, err := openRecordFrom(dir, recordDir)
	if err != nil || from == nil {
		return &Record{InstalledBy: "stax", Skills: map[string]InstalledSkill{}}, err
	}
	defer from.Close()
	return readRecord(from, where)
}

// openRecordFrom opens the directory holding the record of the folder
// dir: recordDir when it holds one, else the folder, where an older stax
// kept it; nil when neither exists.
func openRecordFrom(dir, recordDir string) (*os.Root, string, error) {
	if recordDir != "" {
		root, _, err := openRecordDir(recordDir, false)
		if err == nil {
			if present(root, RecordFile) {
				return root, filepath.Join(recordDir, RecordFile), nil
			}
			root.Close()
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, "", err
		}
	}
	folder, err := os.OpenRoot(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", errdefs.MarkLocal(err)
	}
	return folder, filepath.Join(dir, RecordFile), nil
}

// RecordDir is the directory of records, when the records of the
// folders under root are kept out of them, that holds the record of the
// folder dir: named after the folder's path under root without its
// leading dot, its separators turned into "-" (.claude/skills is
// claude-skills). "" when records is: the folder holds its own.
func RecordDir(records, root, dir string) (string, error) {
	if records == "" {
		return "", nil
	}
	name, err := FolderName(root, dir)
	if err != nil {
		return "", err
	}
	return filepath.Join(records, name), nil
}

// FolderName names the folder dir by its path under root, as one path
// element: without the leading dot, its separators turned into "-". The
// name goes through the safe-name rule like every name stax turns into
// a path.
func FolderName(root, dir string) (string, error) {
	rel, err := filepath.Rel(root, dir)
	if err != nil {
		return "", errdefs.MarkLocal(err)
	}
	name := strings.ReplaceAll(strings.TrimLeft(filepath.ToSlash(rel), "."), "/", "-")
	if err := layers.CheckName(name); err != nil {
		return "", errdefs.Invalid(fmt.Errorf("the folder %s: %w", dir, err))
	}
	return name, nil
}

// openRecord opens the directory the folder's record is kept in,
// creating it when the records are kept out of the folders; close
// removes what it created while nothing was recorded there. A record
// left in the folder by an older stax while the new one is in place was
// committed over: it is removed, so a crash between the two steps of a
// migration is repaired by the next run.
func (p *pending) openRecord() error {
	p.record, p.recordPath = p.folder, filepath.Join(p.opts.Dir, RecordFile)
	dir, err := RecordDir(p.opts.Records, p.basePath, filepath.Join(p.basePath, p.folderRel))
	if err != nil || dir == "" {
		return err
	}
	record, made, err := openRecordDir(dir, true)
	if err != nil {
		return err
	}
	p.record, p.recordMade = record, made
	p.recordDir, p.recordPath = dir, filepath.Join(dir, RecordFile)
	removeLeftovers(p.record)
	if present(p.record, RecordFile) {
		p.dropLegacyRecord()
	}
	return nil
}

// openRecordDir opens recordDir, the directory of one folder's record
// (RecordDir), inside the directory above the records ($STAX_HOME/user
// for Options.Records), making what is missing of it when create. Like
// an install folder, it is opened through os.Root: a symbolic link on the
// way that leads out of that directory (the records linked to another
// directory) is refused, not followed to read and write records there.
// It returns the directories it made, innermost first, for RemoveMade.
// Without create, a recordDir that is not there is fs.ErrNotExist.
func openRecordDir(recordDir string, create bool) (root *os.Root, made []string, err error) {
	top := filepath.Dir(filepath.Dir(recordDir))
	rel := filepath.Join(filepath.Base(filepath.Dir(recordDir)), filepath.Base(recordDir))
	if create {
		if made, err = MkdirAll(top); err != nil {
			return nil, nil, errdefs.MarkLocal(fmt.Errorf("create the directory of the install record: %w", err))
		}
	}
	defer func() {
		if err != nil {
			RemoveMade(made)
		}
	}()
	base, err := os.OpenRoot(top)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, err
		}
		return nil, nil, errdefs.MarkLocal(err)
	}
	defer base.Close()
	if create {
		first := firstMissing(base, rel)
		if err := base.MkdirAll(rel, 0o700); err != nil {
			return nil, nil, refuseRecordDir(base, top, rel, err)
		}
		var inner []string // innermost first, as made is
		for dir := rel; first != ""; dir = filepath.Dir(dir) {
			inner = append(inner, filepath.Join(top, dir))
			if dir == first {
				break
			}
		}
		made = append(inner, made...)
	}
	if root, err = base.OpenRoot(rel); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, err
		}
		return nil, nil, refuseRecordDir(base, top, rel, err)
	}
	return root, made, nil
}

// refuseRecordDir says why the directory of a record, rel in base, could
// not be opened: a symbolic link that leads out of base, or err.
func refuseRecordDir(base *os.Root, basePath, rel string, err error) error {
	if link := linkOnPath(base, basePath, rel); link != "" {
		return errdefs.MarkLocal(fmt.Errorf("%s, which stax does not follow to keep its install records (%w): remove the link, and stax makes the directory again", link, err))
	}
	return errdefs.MarkLocal(fmt.Errorf("open the directory of the install record %s: %w", filepath.Join(basePath, rel), err))
}

// dropLegacyRecord removes the record an older stax kept in the folder,
// once the record is kept elsewhere: it is there, or this install wrote
// it (an empty record is none).
func (p *pending) dropLegacyRecord() {
	if p.record != p.folder && (p.recordWritten || present(p.record, RecordFile)) {
		p.folder.Remove(RecordFile)
	}
}

// MkdirAll creates dir and the directories above it that are missing,
// private to the user, and returns those it made, innermost first, for
// RemoveMade to remove again when what was to be written there is not.
func MkdirAll(dir string) ([]string, error) {
	var made []string
	for d := dir; d != filepath.Dir(d); d = filepath.Dir(d) {
		if _, err := os.Lstat(d); !errors.Is(err, fs.ErrNotExist) {
			break
		}
		made = append(made, d)
	}
	return made, os.MkdirAll(dir, 0o700)
}

// RemoveMade removes the directories MkdirAll made, innermost first,
// each only while it is empty.
func RemoveMade(made []string) {
	for _, d := range made {
		if os.Remove(d) != nil {
			return
		}
	}
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
	h := &treeHasher{files: map[string]string{}, known: known, recorded: recordedNames(known)}
	root, err := folder.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return h.files, h.walk(root, ".", info)
}

// recordedNames are the names known records in each directory of a
// skill, files and directories; nil without a record.
func recordedNames(known *InstalledSkill) map[string][]string {
	if known == nil {
		return nil
	}
	recorded := map[string][]string{}
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
	return recorded
}

// treeHasher is a walk of hashTree.
type treeHasher struct {
	files    map[string]string
	known    *InstalledSkill
	recorded map[string][]string // directory → the names recorded in it
	buf      []byte
}

// walk lists the directory dir, opened as in. Each directory is opened as
// a root of its own, so that a stat in it is one call, not one for every
// directory of its path; its own stat, self, is the one its parent took
// of it just before it was opened.
func (h *treeHasher) walk(in *os.Root, dir string, self fs.FileInfo) error {
	var names []string
	listed := false
	if want, ok := h.known.statOf(dir + "/"); ok && hasStatKey(self, want) {
		names, listed = h.recorded[dir], true
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
		if err := h.entry(in, dir, n); err != nil {
			return err
		}
	}
	return nil
}

// entry lists the entry n of dir, opened as in: a directory is walked, a
// file hashed unless recorded with the stat it has.
func (h *treeHasher) entry(in *os.Root, dir, n string) error {
	rel := path.Join(dir, n)
	info, err := in.Lstat(n)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
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
		defer sub.Close()
		return h.walk(sub, rel, info)
	case !info.Mode().IsRegular():
		h.files[rel] = "not a regular file"
		return nil
	}
	if want, ok := h.known.statOf(rel); ok && hasStatKey(info, want) {
		mode := layers.FileDigest{Executable: info.Mode()&0o111 != 0}.Mode()
		if entry := h.known.Files[rel]; len(entry) > len(mode) && entry[:len(mode)] == mode && entry[len(mode)] == ' ' {
			h.files[rel] = entry
			return nil
		}
	}
	if h.buf == nil {
		h.buf = make([]byte, 64<<10)
	}
	entry, err := hashFile(in, n, h.buf)
	if err != nil {
		return err
	}
	h.files[rel] = entry
	return nil
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

// driftAndStat compares the skill name with its record s and, when s
// lacks the stat of this checkout (a fresh clone, a lost cache) or of its
// directories (a record of an older stax), adds it for a skill found as
// recorded, so that the next install reads none of it again. The stat is
// taken before the files are read and again after, and kept only when the
// two agree: an edit made while they were read must not be cached as what
// was read, or the next install would take it for stax's and replace it.
func (p *pending) driftAndStat(name string, s *InstalledSkill, withDirs bool) (*Drift, error) {
	return statAround(p.folder, name, s, withDirs, func() (*Drift, error) { return drift(p.folder, name, *s, true) })
}

// statAround is driftAndStat with read, the comparison, given.
func statAround(folder *os.Root, name string, s *InstalledSkill, withDirs bool, read func() (*Drift, error)) (*Drift, error) {
	if s.Stat != nil && withDirs {
		return read()
	}
	stat := func() (map[string]string, error) {
		st := statTree(folder, name, s.Files)
		return st, statDirs(folder, name, st)
	}
	// A skill that is not there, or changes as it is read, is compared
	// all the same; it is only not cached.
	before, berr := stat()
	d, err := read()
	if err != nil || d != nil || berr != nil {
		return d, err
	}
	if after, aerr := stat(); aerr != nil || !maps.Equal(before, after) {
		return nil, nil
	}
	if s.Stat == nil {
		s.Stat = before
		return nil, nil
	}
	for rel, key := range before {
		if strings.HasSuffix(rel, "/") {
			s.Stat[rel] = key
		}
	}
	return nil, nil
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
	// Merged is a skill whose MEMORY.md, as recorded, holds the user's
	// entries, merged into the package's by an update (Changed names it).
	Merged bool `json:"merged,omitempty"`
}

func (d Drift) describe() string {
	if d.Missing {
		return "missing"
	}
	if d.Merged {
		return "its " + stateful.MemoryFile + " holds your entries, merged into the package's by an update"
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

// CheckIn compares the skills recorded for dir, in recordDir as
// ReadRecordIn reads it, with the files on disk.
func CheckIn(dir, recordDir string) ([]Drift, error) {
	folder, err := os.OpenRoot(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, errdefs.MarkLocal(err)
	}
	defer folder.Close()
	rec, err := ReadRecordIn(dir, recordDir)
	if err != nil {
		return nil, err
	}
	var drifts []Drift
	for _, name := range slices.Sorted(maps.Keys(rec.Skills)) {
		d, err := drift(folder, name, rec.Skills[name], false)
		if err != nil {
			return nil, errdefs.MarkLocal(err)
		}
		if d != nil {
			drifts = append(drifts, *d)
		}
	}
	return drifts, nil
}
