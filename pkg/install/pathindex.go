package install

import (
	"slices"
	"strings"
)

// pathIndex finds things by a skill's path, as a map would, in a sorted
// slice: an install of thousands of skills looks each one up, and a map
// of them held a few times the memory.
type pathIndex[T any] struct {
	items []T // sorted by path, one for each path
	path  func(T) string
}

// newPathIndex indexes the n things item gives; of two with one path,
// the later one is kept, as a map assigned in order would.
func newPathIndex[T any](n int, item func(int) T, path func(T) string) pathIndex[T] {
	items := make([]T, n)
	for i := range items {
		items[i] = item(i)
	}
	slices.SortStableFunc(items, func(a, b T) int { return strings.Compare(path(a), path(b)) })
	// Keep the last of each run of one path.
	out := items[:0]
	for i, it := range items {
		if i+1 < len(items) && path(items[i+1]) == path(it) {
			continue
		}
		out = append(out, it)
	}
	clear(items[len(out):])
	return pathIndex[T]{items: out, path: path}
}

// get returns the thing of path p, or the zero T.
func (x pathIndex[T]) get(p string) T {
	i, ok := slices.BinarySearchFunc(x.items, p, func(it T, p string) int { return strings.Compare(x.path(it), p) })
	if !ok {
		var zero T
		return zero
	}
	return x.items[i]
}
