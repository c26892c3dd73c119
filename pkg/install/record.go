package install

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/pkg/exitcode"
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

// InstalledSkill is one skill stax installed.
type InstalledSkill struct {
	Package       string        `json:"package"`
	PackageDigest digest.Digest `json:"packageDigest"`
	// Digest is the skill's digest in its package.
	Digest digest.Digest `json:"digest"`
	// Files are the files as written (after variable substitution), path
	// relative to the skill directory → "<mode> <digest>".
	Files map[string]string `json:"files"`
}

func readRecord(dir string) (*Record, error) {
	data, err := os.ReadFile(filepath.Join(dir, RecordFile))
	if errors.Is(err, fs.ErrNotExist) {
		return &Record{InstalledBy: "stax", Skills: map[string]InstalledSkill{}}, nil
	}
	if err != nil {
		return nil, exitcode.Wrap(exitcode.FileSystem, err)
	}
	var r Record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, exitcode.Wrap(exitcode.Materialization, fmt.Errorf("%s: %w (stax cannot tell what it installed; remove the skills it installed and this file by hand)", filepath.Join(dir, RecordFile), err))
	}
	if r.Skills == nil {
		r.Skills = map[string]InstalledSkill{}
	}
	return &r, nil
}

// ReadRecord returns what stax installed in dir; an empty record when
// nothing.
func ReadRecord(dir string) (*Record, error) { return readRecord(dir) }

func (r *Record) write(dir string) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".stax-install-*")
	if err != nil {
		return exitcode.Wrap(exitcode.FileSystem, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return exitcode.Wrap(exitcode.FileSystem, err)
	}
	if err := tmp.Close(); err != nil {
		return exitcode.Wrap(exitcode.FileSystem, err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return exitcode.Wrap(exitcode.FileSystem, err)
	}
	return exitcode.Wrap(exitcode.FileSystem, os.Rename(tmp.Name(), filepath.Join(dir, RecordFile)))
}

// hashTree lists the files under root as RecordSkill.Files does.
func hashTree(root string) (map[string]string, error) {
	files := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if !info.Mode().IsRegular() {
			rel, _ := filepath.Rel(root, p)
			files[filepath.ToSlash(rel)] = "not a regular file"
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		files[filepath.ToSlash(rel)] = fileEntry(info.Mode(), digest.NewDigest(digest.SHA256, h))
		return nil
	})
	return files, err
}

func fileEntry(mode fs.FileMode, d digest.Digest) string {
	if mode&0o111 != 0 {
		return "755 " + d.String()
	}
	return "644 " + d.String()
}

// Drift is how an installed skill differs from its record.
type Drift struct {
	Skill   string   `json:"skill"`
	Added   []string `json:"added"`
	Removed []string `json:"removed"`
	Changed []string `json:"changed"`
	Missing bool     `json:"missing,omitempty"`
}

// Check compares the skills recorded in dir with the files on disk.
func Check(dir string) ([]Drift, error) {
	rec, err := readRecord(dir)
	if err != nil {
		return nil, err
	}
	var drifts []Drift
	for _, name := range slices.Sorted(maps.Keys(rec.Skills)) {
		want := rec.Skills[name]
		d := Drift{Skill: name, Added: []string{}, Removed: []string{}, Changed: []string{}}
		got, err := hashTree(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			d.Missing = true
			drifts = append(drifts, d)
			continue
		}
		if err != nil {
			return nil, exitcode.Wrap(exitcode.FileSystem, err)
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
		if len(d.Added)+len(d.Removed)+len(d.Changed) > 0 {
			drifts = append(drifts, d)
		}
	}
	return drifts, nil
}
