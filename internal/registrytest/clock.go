package registrytest

import (
	"context"
	"slices"
	"sync"
	"time"
)

// Clock is a clock for the registry client under test (registry.Options
// Clock): Sleep returns at once, records how long it was asked to wait,
// and moves Now on by as much. A retry then costs no real time, and a test
// checks the waits themselves rather than how long it ran.
type Clock struct {
	mu    sync.Mutex
	now   time.Time
	waits []time.Duration
}

// NewClock returns a Clock reading now.
func NewClock(now time.Time) *Clock { return &Clock{now: now} }

// Now returns the clock's time: the start time plus every wait so far.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Sleep records d and returns, or returns ctx's error, recording nothing,
// when ctx is already done.
func (c *Clock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.waits = append(c.waits, d)
	c.now = c.now.Add(d)
	return nil
}

// Waits returns the waits Sleep was asked for, oldest first.
func (c *Clock) Waits() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.waits)
}
