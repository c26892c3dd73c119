package workflow

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/internal/atomicfile"
	"github.com/stax-dev/stax/internal/regularfile"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/lock"
	"github.com/stax-dev/stax/pkg/store"
)

// storeRootsDir is the directory of $STAX_HOME where an install registers
// its project: the packages the project's stax.lock pins are the roots
// stax store prune keeps, whether a tag still names them or not (a
// dependency is stored by its digest alone, and a moved tag leaves the
// package it named untagged), so that install --frozen --offline still
// finds them.
const storeRootsDir = "store-roots"

// maxStoreRootSize bounds a file of storeRootsDir, which holds two paths.
const maxStoreRootSize = 64 << 10

// storeRoot is a file of storeRootsDir: a project, and its stax.lock,
// which prune reads for the digests it pins. The lock is read when prune
// runs, not copied here, so that what a later install, update or remove
// no longer pins is freed.
type storeRoot struct {
	Project string `json:"project"`
	Lock    string `json:"lock"`
}

// addStoreRoot registers the project in dir, whose stax.lock an install
// has written, in storeRootsDir; once, under the project's lock. The
// install holds the store's lock too, so a prune sees either no lock
// and none of its packages, or both.
func (e *Env) addStoreRoot(dir string) error {
	home, err := store.HomeFrom(e.getenv)
	if err != nil {
		return err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return errdefs.MarkLocal(err)
	}
	data, err := json.Marshal(storeRoot{Project: abs, Lock: filepath.Join(abs, lock.FileName)})
	if err != nil {
		return err
	}
	roots := filepath.Join(home, storeRootsDir)
	path := filepath.Join(roots, digest.FromString(abs).Encoded()+".json")
	if old, err := regularfile.ReadFile(path, maxStoreRootSize); err == nil && bytes.Equal(old, data) {
		return nil
	}
	if err := os.MkdirAll(roots, 0o755); err != nil {
		return errdefs.MarkLocal(err)
	}
	return errdefs.MarkLocal(atomicfile.WriteFile(path, data, 0o644))
}

// storeRoots are the roots of a prune: the digests pinned by the
// stax.lock of each project registered in storeRootsDir, the git
// repositories it takes git sources from (the git cache keeps those),
// and those projects. A registration whose stax.lock is gone (the project was
// removed, or no longer installs) is removed, but on a dry run, and
// returned in dropped. One that cannot be read is named in a note to
// env.Warnings: the packages it pins are not kept.
func (e *Env) storeRoots(dryRun bool) (roots []digest.Digest, repos, projects, dropped []string, err error) {
	home, err := store.HomeFrom(e.getenv)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	paths, err := filepath.Glob(filepath.Join(home, storeRootsDir, "*.json"))
	if err != nil {
		return nil, nil, nil, nil, errdefs.MarkLocal(err)
	}
	projects, dropped = []string{}, []string{}
	for _, path := range paths {
		var root storeRoot
		data, err := regularfile.ReadFile(path, maxStoreRootSize)
		if err == nil {
			err = json.Unmarshal(data, &root)
		}
		if err == nil && (!filepath.IsAbs(root.Lock) || !filepath.IsAbs(root.Project)) {
			err = errors.New("it names no absolute paths")
		}
		if err != nil {
			e.notef("the store root %s cannot be read (%v): remove it", path, err)
			continue
		}
		l, err := lock.Read(root.Lock)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if !dryRun {
				if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
					return nil, nil, nil, nil, errdefs.MarkLocal(err)
				}
			}
			dropped = append(dropped, root.Project)
			continue
		case err != nil:
			e.notef("%v: the packages it pins are not kept", err)
			continue
		}
		projects = append(projects, root.Project)
		for _, p := range l.Packages {
			if p.Digest.Validate() == nil {
				roots = append(roots, p.Digest)
			}
			if g := p.Git; g != nil {
				repos = append(repos, g.URL)
				if g.Followed != nil {
					repos = append(repos, g.Followed.URL)
				}
			}
		}
	}
	slices.Sort(projects)
	slices.Sort(dropped)
	return roots, repos, projects, dropped, nil
}

// noteStoreRoot registers the project of an install (addStoreRoot); a
// failure does not fail the install, which is done, and is noted.
func (e *Env) noteStoreRoot(dir string) {
	if err := e.addStoreRoot(dir); err != nil {
		e.notef("the packages of %s are not registered as kept by stax store prune: %v", dir, err)
	}
}
