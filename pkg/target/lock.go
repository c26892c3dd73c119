package target

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
	"github.com/opencontainers/go-digest"

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
	return lockNamed(ctx, t.lockDir, "tag", repo.String(), "tag "+t.Name())
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
		return nil, errdefs.IO(fmt.Errorf("lock OCI layout %s: %w", dir, err))
	}
	return lockNamed(ctx, o.LockDir, "layout", path, "OCI layout "+dir)
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

// lockNamed takes the exclusive lock of name in lockDir, a file named
// after kind and name's digest; what names what is locked, for messages.
// The lock files stay: removing one another process waits on would let
// a third lock a new file of the same name at once.
func lockNamed(ctx context.Context, lockDir, kind, name, what string) (unlock func(), err error) {
	if err := os.MkdirAll(lockDir, 0o755); err != nil {
		return nil, errdefs.IO(fmt.Errorf("create lock directory: %w", err))
	}
	path := lockPath(lockDir, kind, name)
	lock := flock.New(path)
	ok, err := lock.TryLockContext(ctx, lockRetryDelay)
	if err != nil || !ok {
		return nil, errdefs.IO(fmt.Errorf("lock %s (%s): another stax holds it: %v", what, path, err))
	}
	return func() { _ = lock.Unlock() }, nil
}

// lockPath is the file of the lock of name in lockDir.
func lockPath(lockDir, kind, name string) string {
	return filepath.Join(lockDir, kind+"-"+digest.FromString(name).Encoded()[:32]+".lock")
}

// lockRetryDelay is how often a lock another process holds is tried
// again.
const lockRetryDelay = 50 * time.Millisecond
