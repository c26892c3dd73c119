package transfer

import (
	"context"
	"sync"
)

// DefaultConcurrency is how many things Concurrently does at once when
// not told, and how many packages a command looks up and fetches at once.
// Packages of skills are small, and fetching one is a round trip or two
// of waiting on the registry: ten of them, a project's worth, then cost
// two round trips rather than seven (3, oras's default, is meant for the
// layers of one image). Extracting layers, which is CPU and disk work, is
// bounded apart from it (see layers.ExtractWorkers).
const DefaultConcurrency = 10

// Concurrently calls fn(ctx, i) for each i in [0, n), at most limit at
// once (limit < 1 is DefaultConcurrency), starting them in index order.
// It returns what a loop calling fn in order, stopping at the first
// error, would return: the error of the lowest index that failed, nil
// when none did. Once item i has failed, the items after it are not
// started and those running are cancelled, since their errors could not
// be the one reported; the items before it run to their end, since one
// of them failing too would be.
func Concurrently(ctx context.Context, n, limit int, fn func(ctx context.Context, i int) error) error {
	if limit < 1 {
		limit = DefaultConcurrency
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
