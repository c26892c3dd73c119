package install

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/stax-dev/stax/internal/filelock"
	"github.com/stax-dev/stax/pkg/errdefs"
)

// LockProject takes the lock of the project in dir (or of a user-scope
// directory under $STAX_HOME), waiting while another stax holds it, until
// ctx ends. A command that reads stax.yaml to change it, or installs from
// it, holds it from before it reads stax.yaml until it has written
// stax.yaml, stax.lock and the folders: two commands at once on one
// project then each start from what the other wrote, and neither loses
// the other's source. It is the first lock of the order every stax takes
// its locks in: the project, then the local store, then the folders (see
// docs/architecture.md). waiting, when set, is called once before it
// waits, for the command to say why it does not go on.
func LockProject(ctx context.Context, lockDir, dir string, waiting func()) (unlock func(), err error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, errdefs.MarkLocal(err)
	}
	// A project reached through a link is the same project.
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return filelock.Lock(ctx, lockDir, filelock.Named("project", abs), "command on the project "+dir, waiting)
}

// RecoverFiles finishes or undoes, as Recover does, each interrupted
// install whose journal in lockDir writes one of paths, and says what it
// did: a project's stax.yaml and stax.lock are then a pair written by the
// same install before a command reads them. Paths are compared as
// absolute paths, whatever directory the install ran in. The caller holds the
// project's lock, which comes before the folders' in the lock order.
func RecoverFiles(ctx context.Context, lockDir string, paths ...string) ([]string, error) {
	journals, err := filepath.Glob(filepath.Join(lockDir, "*"+journalSuffix))
	if err != nil || len(journals) == 0 {
		return nil, nil
	}
	want := make([]string, len(paths))
	for i, p := range paths {
		want[i] = samePathKey(p)
	}
	var notes []string
	for _, path := range journals {
		data, err := os.ReadFile(path)
		if err != nil {
			continue // completed since, or not ours to read
		}
		var j journalData
		if json.Unmarshal(data, &j) != nil || !slices.ContainsFunc(j.files(), func(lc *lockChange) bool { return slices.Contains(want, samePathKey(lc.Path)) }) {
			continue
		}
		note, err := recoverFolder(ctx, lockDir, path)
		if err != nil {
			return notes, err
		}
		if note != "" {
			notes = append(notes, note)
		}
	}
	sweepMarkers(lockDir)
	return notes, nil
}

// samePathKey is path as RecoverFiles compares it: absolute, cleaned,
// its directory's links resolved, so that a project reached from another
// working directory, or through a link, is the same project. A relative
// path is taken in the working directory.
func samePathKey(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(dir, filepath.Base(abs))
	}
	return abs
}

// recoverFolder recovers the journal at path under the lock of its
// folder, which shares its name.
func recoverFolder(ctx context.Context, lockDir, path string) (string, error) {
	key := strings.TrimSuffix(filepath.Base(path), journalSuffix)
	unlock, err := filelock.Lock(ctx, lockDir, key+".lock", "install", nil)
	if err != nil {
		return "", err
	}
	defer unlock()
	return recoverJournal(path, lockDir)
}
