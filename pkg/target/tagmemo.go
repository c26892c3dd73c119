package target

import (
	"context"
	"slices"
	"sync"
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
type TagMemo struct {
	mu     sync.Mutex
	listed map[string]*tagListing
}

// tagListing is one repository's listing, done when done is closed.
type tagListing struct {
	done chan struct{}
	tags []string
	err  error
}

// NewTagMemo returns an empty memo.
func NewTagMemo() *TagMemo {
	return &TagMemo{listed: map[string]*tagListing{}}
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
