package target

import (
	"context"
	"slices"
	"sync"

	"github.com/stax-dev/stax/pkg/registry"
)

// TagMemo remembers the tags of the registry repositories listed through
// the targets of an Opener, so that a job reading a repository's tags
// more than once asks the registry once: update lists the tags of its
// ranged sources to move the ranges, then resolves the sources through
// the same tags. Listings of one repository made at once wait for one
// request. A listing that failed is not remembered: the next asks again
// and reports its own error. A memo does not see the tags written after
// it listed them; it is for jobs that write none to the repositories
// they list.
//
// All the listings of a memo, which it keeps, take their pages from one
// budget: however many repositories a job lists, what it keeps of their
// tags is bounded.
type TagMemo struct {
	budget *registry.TagBudget

	mu     sync.Mutex
	listed map[string]*tagListing
}

// tagListing is one repository's listing, done when done is closed.
type tagListing struct {
	done chan struct{}
	tags []string
	err  error
}

// NewTagMemo returns an empty memo, its listings within
// registry.DefaultTagLimits together.
func NewTagMemo() *TagMemo {
	return NewTagMemoWithin(registry.DefaultTagLimits)
}

// NewTagMemoWithin returns an empty memo, its listings within limits
// together.
func NewTagMemoWithin(limits registry.TagLimits) *TagMemo {
	return &TagMemo{budget: registry.NewTagBudget(limits), listed: map[string]*tagListing{}}
}

// tags returns the tags of the repository named repo, calling list for
// them unless they are remembered or being listed already. Each caller
// gets its own copy.
func (m *TagMemo) tags(ctx context.Context, repo string, list func(context.Context) ([]string, error)) ([]string, error) {
	for {
		m.mu.Lock()
		l, ok := m.listed[repo]
		if !ok {
			l = &tagListing{done: make(chan struct{})}
			m.listed[repo] = l
			m.mu.Unlock()
			l.tags, l.err = list(ctx)
			if l.err != nil {
				m.mu.Lock()
				delete(m.listed, repo)
				m.mu.Unlock()
			}
			close(l.done)
			return slices.Clone(l.tags), l.err
		}
		m.mu.Unlock()
		select {
		case <-l.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if l.err == nil {
			return slices.Clone(l.tags), nil
		}
		// The listing failed, maybe only because its caller gave up: ask
		// again, for an error of this caller's own.
	}
}
