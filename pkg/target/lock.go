package target

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/stax-dev/stax/internal/filelock"
	"github.com/stax-dev/stax/pkg/errdefs"
)

// LockTag takes the lock that serializes, among the stax processes that
// share Opener.LockDir, the claims of the target's tag (see
// transfer.Options.NoOverwrite): a look-up of the tag, its write and the
// look-up that reads it back. It waits while another process holds it,
// until ctx ends. Without a lock directory, or for a target without a
// tag, it takes nothing.
func (t *Target) LockTag(ctx context.Context) (unlock func(), err error) {
	if t.lockDir == "" || t.Ref.Tag == "" {
		return func() {}, nil
	}
	repo := t.Ref
	repo.Digest = ""
	name := t.Name()
	return filelock.Lock(ctx, t.lockDir, filelock.Bucketed("tag", repo.String()), "claiming the tag "+name, filelock.WaitingNote(t.notes, "claiming the tag "+name))
}

// lockLayout takes the lock of the OCI layout at dir, held by whoever
// writes it, so that two writers never build on one index.json: the
// second waits, then reads what the first wrote. It is named after the
// layout's absolute path, with the links of the part that exists
// resolved, so that two names of one layout take one lock.
func (o *Opener) lockLayout(ctx context.Context, dir string) (unlock func(), err error) {
	if o.LockDir == "" {
		return func() {}, nil
	}
	path, err := canonicalPath(dir)
	if err != nil {
		return nil, errdefs.MarkLocal(fmt.Errorf("lock OCI layout %s: %w", dir, err))
	}
	return filelock.Lock(ctx, o.LockDir, filelock.Bucketed("layout", path), "writing the OCI layout "+dir, filelock.WaitingNote(o.Notes, "writing the OCI layout "+dir))
}

// canonicalPath is dir made absolute, its longest existing prefix with
// links resolved.
func canonicalPath(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	rest := ""
	for p := abs; ; p = filepath.Dir(p) {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(real, rest), nil
		}
		if filepath.Dir(p) == p {
			return abs, nil
		}
		rest = filepath.Join(filepath.Base(p), rest)
	}
}
