package checkout

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"strings"
	"unicode"

	"github.com/stax-dev/stax/internal/regularfile"
	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/skill"
)

// maxManifestSize bounds a marketplace.json or plugin.json: a catalog of
// thousands of plugins fits in far less.
const maxManifestSize = 1 << 20

// tree is the checkout being read. Every path in it is slash-separated and
// relative to its root, and every file is opened through an os.Root, so
// that no link leads a read out of it.
type tree struct {
	dir string
	fs  *os.Root
}

func openTree(dir string) (*tree, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, errdefs.MarkLocal(err)
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, errdefs.MarkLocal(fmt.Errorf("open checkout %s: %w", dir, err))
	}
	return &tree{dir: abs, fs: root}, nil
}

func (t *tree) Close() error { return t.fs.Close() }

// disk is the path on disk of rel.
func (t *tree) disk(rel string) string { return filepath.Join(t.dir, filepath.FromSlash(rel)) }

// join resolves p, a path a file of the checkout wrote relative to base,
// to a clean path relative to the root: "." for the root. It refuses an
// absolute path, a backslash, a control character and a path that leads
// out of the checkout.
func join(base, p string) (string, error) {
	switch {
	case p == "":
		return "", errors.New("the path is empty")
	case path.IsAbs(p) || filepath.IsAbs(p) || filepath.VolumeName(p) != "":
		return "", fmt.Errorf("%q is absolute: a path in a repository is relative to it", p)
	case strings.ContainsRune(p, '\\'):
		return "", fmt.Errorf("%q holds a backslash: paths are written with /", p)
	case strings.IndexFunc(p, unicode.IsControl) >= 0:
		return "", fmt.Errorf("%q holds a control character", p)
	}
	j := path.Join(base, p)
	if j == ".." || strings.HasPrefix(j, "../") {
		return "", fmt.Errorf("%q leads out of the repository", p)
	}
	return j, nil
}

// stat is what rel is, following links inside the checkout only; nil when
// it is missing or a link leads out.
func (t *tree) stat(rel string) fs.FileInfo {
	fi, err := t.fs.Stat(rel)
	if err != nil {
		return nil
	}
	return fi
}

func (t *tree) isDir(rel string) bool {
	fi := t.stat(rel)
	return fi != nil && fi.IsDir()
}

func (t *tree) isFile(rel string) bool {
	fi := t.stat(rel)
	return fi != nil && fi.Mode().IsRegular()
}

// readJSON decodes the file rel into v, refusing one over
// maxManifestSize. A missing file is fs.ErrNotExist.
func (t *tree) readJSON(rel string, v any) error {
	f, err := regularfile.OpenIn(t.fs, rel)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return errdefs.Invalid(fmt.Errorf("%s: %w", rel, err))
	}
	defer f.Close()
	data, err := regularfile.ReadAll(f, rel, maxManifestSize)
	if err != nil {
		return errdefs.Invalid(err)
	}
	if err := exactKeys(data, v); err != nil {
		return errdefs.Invalid(fmt.Errorf("%s: %w", rel, err))
	}
	if err := json.Unmarshal(data, v); err != nil {
		return errdefs.Invalid(fmt.Errorf("%s is not the JSON its format describes: %w", rel, err))
	}
	return nil
}

// skillsIn are the skills of dir: dir itself when it holds a SKILL.md,
// else its children that hold one; none when dir is no folder of the
// checkout (missing, a file, a link out). Each is named after its directory
// (name for dir itself when it is the root), which must pass the one
// safe-name rule.
func (t *tree) skillsIn(dir, name string) ([]Skill, error) {
	if t.isFile(path.Join(dir, skill.FileName)) {
		if dir != "." {
			name = path.Base(dir)
		}
		if err := layers.CheckName(name); err != nil {
			return nil, errdefs.Invalid(fmt.Errorf("skill %s: %w", dir, err))
		}
		return []Skill{{Name: name, Dir: dir}}, nil
	}
	if !t.isDir(dir) {
		return nil, nil
	}
	f, err := t.fs.Open(dir)
	if err != nil {
		return nil, nil
	}
	defer f.Close()
	entries, err := f.ReadDir(layers.DefaultMaxFiles + 1)
	if err != nil && err != io.EOF {
		return nil, errdefs.MarkLocal(fmt.Errorf("read %s: %w", dir, err))
	}
	if len(entries) > layers.DefaultMaxFiles {
		return nil, errdefs.Invalid(fmt.Errorf("%s holds more than %d entries, the most a package holds", dir, layers.DefaultMaxFiles))
	}
	var out []Skill
	for _, e := range entries {
		sub := path.Join(dir, e.Name())
		if !t.isFile(path.Join(sub, skill.FileName)) {
			continue
		}
		if err := layers.CheckName(e.Name()); err != nil {
			// The error quotes the name, which is no path to print as is.
			return nil, errdefs.Invalid(fmt.Errorf("skill in %s: %w", dir, err))
		}
		out = append(out, Skill{Name: e.Name(), Dir: sub})
	}
	return out, nil
}

// checkIgnoreFile refuses the .staxignore of dir, the package root, when
// it leads out of the checkout at root or is not a regular file: pack
// reads it by its path, and what it leaves out decides the package.
func checkIgnoreFile(root, dir string) error {
	t, err := openTree(root)
	if err != nil {
		return err
	}
	defer t.Close()
	rel := path.Join(dir, layers.IgnoreFile)
	if _, err := t.fs.Lstat(rel); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if !t.isFile(rel) {
		return errdefs.Invalid(fmt.Errorf("%s leads out of the repository or is not a regular file", rel))
	}
	return nil
}

// exactKeys refuses, in a manifest decoded as v will be, a key Go's
// decoder would take for a field in another letter case ("Source",
// "ſource"). The tools these files are written for read keys as written,
// so such a key beside "source" would make stax install another plugin
// than the one they install and a reviewer reads.
func exactKeys(data []byte, v any) error {
	var doc any
	if json.Unmarshal(data, &doc) != nil {
		return nil // the decode that follows says what is wrong
	}
	return checkKeys(doc, reflect.TypeOf(v).Elem())
}

var (
	rawMessage = reflect.TypeFor[json.RawMessage]()
	sourceType = reflect.TypeFor[sourceObject]()
)

// checkKeys is exactKeys of doc, decoded into a value of type t. A
// plugin's source, a raw field decoded later, is a sourceObject when it
// is an object; the other raw fields are read for no key.
func checkKeys(doc any, t reflect.Type) error {
	switch {
	case t.Kind() == reflect.Slice && t != rawMessage:
		list, _ := doc.([]any)
		for _, e := range list {
			if err := checkKeys(e, t.Elem()); err != nil {
				return err
			}
		}
	case t.Kind() == reflect.Struct:
		obj, _ := doc.(map[string]any)
		for k, child := range obj {
			for f := range t.Fields() {
				name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
				switch {
				case k != name && strings.EqualFold(k, name):
					return fmt.Errorf("key %q is %q in another letter case: write it %q", k, name, name)
				case k == name && f.Type == rawMessage && name == "source":
					if err := checkKeys(child, sourceType); err != nil {
						return err
					}
				case k == name:
					if err := checkKeys(child, f.Type); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}
