// Package filelock takes the named locks stax processes share in a lock
// directory ($STAX_HOME/locks): flock locks, which the kernel releases
// when a process dies, so a killed stax never leaves one held.
//
// A lock file stays once made: removing one another process waits on
// would let a third lock a new file of the same name at once. Locks whose
// names are unbounded (one a tag ever claimed, one a layout ever written)
// are therefore bucketed (see Bucketed), so that their files are few.
package filelock

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/gofrs/flock"
	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/pkg/errdefs"
)

// RetryDelay is how often a lock another process holds is tried again.
const RetryDelay = 50 * time.Millisecond

// Named is the file name of the lock of name, of one kind ("project",
// "tag"): kind, then the first 32 hex digits of name's digest, one file a
// name.
func Named(kind, name string) string {
	return kind + "-" + digest.FromString(name).Encoded()[:32] + ".lock"
}

// Bucketed is the file name of the lock of a bucket of names of one
// kind: kind, then the first 2 hex digits of name's digest, so that there
// are at most 256 files of the kind however many names it locks. Names
// that share a bucket wait for each other; a process must therefore never
// hold two locks of one bucketed kind at once.
func Bucketed(kind, name string) string {
	return kind + "-" + digest.FromString(name).Encoded()[:2] + ".lock"
}

// Lock takes the exclusive lock of the file named file in dir, making
// dir if needed, and waits while another holds it, until ctx ends. what
// says what a holder does ("install into DIR"), for messages: a wait
// that ctx ended names it, and a lock file that cannot be used (no
// permission, a full disk) is said to be that, not contention. waiting,
// when set, is called once before it waits, for the command to say why it
// does not go on.
//
// Within one process, holders of one file take turns too: flock locks
// taken through two descriptors of one file exclude each other, and a
// goroutine waits for its turn as another process's holder is waited for.
func Lock(ctx context.Context, dir, file, what string, waiting func()) (unlock func(), err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, errdefs.MarkLocal(fmt.Errorf("create the lock directory %s: %w", dir, err))
	}
	path := filepath.Join(dir, file)
	turn := turnOf(path)
	select {
	case turn <- struct{}{}:
	default:
		if waiting != nil {
			waiting()
			waiting = nil
		}
		select {
		case turn <- struct{}{}:
		case <-ctx.Done():
			return nil, errdefs.MarkLocal(fmt.Errorf("another stax %s holds %s; stopped waiting: %w", what, path, ctx.Err()))
		}
	}
	lock := flock.New(path)
	ok, err := lock.TryLock()
	if err == nil && !ok {
		if waiting != nil {
			waiting()
		}
		ok, err = lock.TryLockContext(ctx, RetryDelay)
	}
	if err != nil || !ok {
		<-turn
		if ctxErr := ctx.Err(); ctxErr != nil && (err == nil || errors.Is(err, ctxErr)) {
			return nil, errdefs.MarkLocal(fmt.Errorf("another stax %s holds %s; stopped waiting: %w", what, path, ctxErr))
		}
		return nil, errdefs.MarkLocal(fmt.Errorf("cannot use the lock file %s (%w): check that you can write it and its directory", path, err))
	}
	return func() {
		_ = lock.Unlock()
		<-turn
	}, nil
}

// turns holds, by lock file path, the turn of this process's holder: a
// channel of one slot. It grows by one entry a file, as the files do.
var turns sync.Map

func turnOf(path string) chan struct{} {
	t, _ := turns.LoadOrStore(path, make(chan struct{}, 1))
	return t.(chan struct{})
}

// WaitingNote is a waiting func for Lock that says on w what the command
// waits for, "note: waiting for another stax WHAT to finish", the one
// wording of every wait for a lock. Nothing is said when w is nil.
func WaitingNote(w io.Writer, what string) func() {
	return func() {
		if w != nil {
			fmt.Fprintf(w, "note: waiting for another stax %s to finish\n", what)
		}
	}
}
