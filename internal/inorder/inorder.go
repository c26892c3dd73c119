// Package inorder runs the items of a loop at once, and reports what the
// loop, run one item after another, would have: the first error in order.
package inorder

import (
	"context"
	"sync"
)

// DefaultLimit is how many items Concurrently runs at once when not
// told (see transfer.DefaultConcurrency, which it is).
const DefaultLimit = 10

// Concurrently calls fn(ctx, i) for each i in [0, n), at most limit at
// once (limit < 1 is DefaultLimit), starting them in index order.
// It returns what a loop calling fn in order, stopping at the first
// error, would return: the error of the lowest index that failed, nil
// when none did. Once item i has failed, the items after it are not
// started and those running are cancelled, since their errors could not
// be the one reported; the items before it run to their end, since one
// of them failing too would be.
func Concurrently(ctx context.Context, n, limit int, fn func(ctx context.Context, i int) error) error {
	if limit < 1 {
		limit = DefaultLimit
	}
	var (
		mu       sync.Mutex
		failed   = n // the lowest index that failed
		firstErr error
		cancels  = make([]context.CancelFunc, n)
		wg       sync.WaitGroup
		started  int
	)
	slots := make(chan struct{}, limit)
	for i := range n {
		slots <- struct{}{}
		mu.Lock()
		if failed < i || ctx.Err() != nil {
			mu.Unlock()
			break
		}
		itemCtx, cancel := context.WithCancel(ctx)
		cancels[i] = cancel
		started++
		mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			err := fn(itemCtx, i)
			mu.Lock()
			defer mu.Unlock()
			if err == nil || i > failed {
				return
			}
			failed, firstErr = i, err
			for _, cancel := range cancels[i+1:] {
				if cancel != nil {
					cancel()
				}
			}
		}()
	}
	wg.Wait()
	for _, cancel := range cancels {
		if cancel != nil {
			cancel()
		}
	}
	if firstErr == nil && started < n {
		// Stopped before the end by ctx alone, as a loop checking it would.
		return ctx.Err()
	}
	return firstErr
}

// WhenReady is Concurrently for items that each wait for something
// before they can run: ready(ctx, i) returns once item i can run, or
// with why it cannot (its error is item i's). An item takes one of the
// limit slots only once it is ready, whatever its index, so that items
// ready early run while an earlier one still waits; a loop over items
// whose inputs arrive in any order (layers being downloaded) then keeps
// its workers busy. It returns what Concurrently returns: the error of
// the lowest index that failed; once item i has failed, the items after
// it that have not started do not, and those running are cancelled.
func WhenReady(ctx context.Context, n, limit int, ready, fn func(ctx context.Context, i int) error) error {
	if limit < 1 {
		limit = DefaultLimit
	}
	var (
		mu       sync.Mutex
		failed   = n // the lowest index that failed
		firstErr error
		ctxs     = make([]context.Context, n)
		cancels  = make([]context.CancelFunc, n)
		wg       sync.WaitGroup
	)
	for i := range n {
		ctxs[i], cancels[i] = context.WithCancel(ctx)
	}
	fail := func(i int, err error) {
		mu.Lock()
		defer mu.Unlock()
		if i > failed {
			return
		}
		failed, firstErr = i, err
		for _, cancel := range cancels[i+1:] {
			cancel()
		}
	}
	slots := make(chan struct{}, limit)
	for i := range n {
		wg.Go(func() {
			itemCtx := ctxs[i]
			if err := ready(itemCtx, i); err != nil {
				fail(i, err)
				return
			}
			select {
			case slots <- struct{}{}:
			case <-itemCtx.Done():
				fail(i, itemCtx.Err())
				return
			}
			defer func() { <-slots }()
			mu.Lock()
			skip := failed < i
			mu.Unlock()
			if skip {
				return
			}
			// The slot and ctx's end may come at once, and select
			// picks either: a loop checking ctx would stop here.
			if err := itemCtx.Err(); err != nil {
				fail(i, err)
				return
			}
			if err := fn(itemCtx, i); err != nil {
				fail(i, err)
			}
		})
	}
	wg.Wait()
	for _, cancel := range cancels {
		cancel()
	}
	return firstErr
}
