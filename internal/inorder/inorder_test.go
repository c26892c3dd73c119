package inorder_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stax-dev/stax/internal/inorder"
)

// testDeadline bounds a test that would otherwise hang when items do not
// run at once; it is a failure, never a signal.
const testDeadline = 30 * time.Second

// Concurrently runs limit items at once, never more: each item waits
// until limit are running, which only happens if they run together.
func TestConcurrentlyRunsUpToLimitAtOnce(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()
	const limit, n = 4, 12
	var running, most atomic.Int32
	var once sync.Once
	full := make(chan struct{})
	err := inorder.Concurrently(ctx, n, limit, func(ctx context.Context, i int) error {
		now := running.Add(1)
		defer running.Add(-1)
		for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
		}
		if now == limit {
			once.Do(func() { close(full) })
		}
		select {
		case <-full:
			return nil
		case <-ctx.Done():
			return fmt.Errorf("item %d: never %d at once: %w", i, limit, ctx.Err())
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := most.Load(); got != limit {
		t.Errorf("ran %d at once, want %d", got, limit)
	}
}

// The error reported is the lowest index's, as a loop would report it,
// even when a later item fails first; the item failing later is let run
// to its end, and the items after the first failure are cancelled.
func TestConcurrentlyReportsTheLowestIndexError(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()
	errFirst, errSecond := errors.New("item 0 failed"), errors.New("item 1 failed")
	secondCancelled := make(chan struct{})
	err := inorder.Concurrently(ctx, 3, 3, func(ctx context.Context, i int) error {
		switch i {
		case 0:
			// Fails only once item 1's failure has cancelled item 2.
			select {
			case <-secondCancelled:
				return errFirst
			case <-ctx.Done():
				return fmt.Errorf("item 0 was cancelled: %w", ctx.Err())
			}
		case 1:
			return errSecond
		default:
			<-ctx.Done()
			close(secondCancelled)
			return ctx.Err()
		}
	})
	if !errors.Is(err, errFirst) {
		t.Errorf("Concurrently returned %v, want %v", err, errFirst)
	}
}

// After a failure no later item starts; one at a time it is a loop.
func TestConcurrentlyStartsNothingAfterAFailure(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	var called []int
	err := inorder.Concurrently(context.Background(), 10, 1, func(ctx context.Context, i int) error {
		called = append(called, i)
		if i == 3 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) || fmt.Sprint(called) != "[0 1 2 3]" {
		t.Errorf("Concurrently returned %v after calling %v, want boom after [0 1 2 3]", err, called)
	}
	if err := inorder.Concurrently(context.Background(), 0, 0, nil); err != nil {
		t.Errorf("no items: %v", err)
	}
}

// A cancelled context stops the items not yet started.
func TestConcurrentlyStopsOnACancelledContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	var calls atomic.Int32
	err := inorder.Concurrently(ctx, 5, 1, func(ctx context.Context, i int) error {
		calls.Add(1)
		cancel()
		return nil
	})
	if !errors.Is(err, context.Canceled) || calls.Load() != 1 {
		t.Errorf("Concurrently returned %v after %d calls, want context.Canceled after 1", err, calls.Load())
	}
}

// WhenReady runs an item that is ready while an earlier one still waits:
// with one slot, item 0 is ready only once item 1 has run, which a loop
// in index order never gets to.
func TestWhenReadyRunsWhatIsReadyFirst(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()
	ran1 := make(chan struct{})
	var order []int
	var mu sync.Mutex
	err := inorder.WhenReady(ctx, 2, 1, func(ctx context.Context, i int) error {
		if i == 0 {
			select {
			case <-ran1:
			case <-ctx.Done():
				return errors.New("item 0 waited for item 1, which never ran")
			}
		}
		return nil
	}, func(_ context.Context, i int) error {
		mu.Lock()
		order = append(order, i)
		mu.Unlock()
		if i == 1 {
			close(ran1)
		}
		return nil
	})
	if err != nil || fmt.Sprint(order) != "[1 0]" {
		t.Errorf("err = %v, ran %v, want [1 0]", err, order)
	}
}

// Of items failing in any order, WhenReady reports the lowest index's
// error, as a loop would: here item 1 fails first, then item 0, which
// was not ready until then.
func TestWhenReadyReportsTheFirstInOrder(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()
	failed1 := make(chan struct{})
	err := inorder.WhenReady(ctx, 3, 2, func(ctx context.Context, i int) error {
		if i == 0 {
			select {
			case <-failed1:
				return errors.New("item 0 not ready")
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	}, func(ctx context.Context, i int) error {
		if i == 1 {
			defer close(failed1)
			return errors.New("item 1 failed")
		}
		return nil
	})
	if err == nil || err.Error() != "item 0 not ready" {
		t.Errorf("err = %v, want item 0's", err)
	}
}

// A cancelled context stops the items not yet started, as it stops
// Concurrently's, though they are ready and a slot is free: an
// interrupted install does not go on extracting layers.
func TestWhenReadyStopsOnACancelledContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	var calls atomic.Int32
	err := inorder.WhenReady(ctx, 30, 1, func(context.Context, int) error { return nil }, func(context.Context, int) error {
		calls.Add(1)
		cancel()
		return nil
	})
	if !errors.Is(err, context.Canceled) || calls.Load() != 1 {
		t.Errorf("WhenReady returned %v after %d calls, want context.Canceled after 1", err, calls.Load())
	}
}
