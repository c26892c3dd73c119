package layers

import (
	"hash/maphash"
	"strings"
)

type seenKind uint8

const (
	impliedDir seenKind = iota + 1 // parent of an entry, without its own entry yet
	explicitDir
	regularFile
)

// kindBits are the low bits of a key that pathSet keeps a path's kind in.
const kindBits = 3

// pathSet holds every path of a layer by a hash of it, not the path: a
// layer of many skills is read in flat memory. Two paths with one hash
// (odds of 1 in 2^62 per pair, under a seed an archive cannot know) can
// only make a layer refused, never a bad one accepted.
//
// A path can only repeat, or be the parent of, a path of its own
// top-level directory, and stax writes the top-level directories one
// after the other, in the order of their names with a slash ("a-b/"
// before "a/"): so only the one being read is a map, and those before it
// a list of their keys, eight bytes a path. An archive in another order
// (a directory again, or one that sorts before the last) turns the list
// into one map of every path for the rest of the layer, once.
type pathSet struct {
	seed maphash.Seed
	// top is the top-level directory of the paths in current, unless
	// all is set: then current holds every path of the layer.
	top     string
	current map[uint64]seenKind
	all     bool
	// before are the keys of the top-level directories before top, each
	// with its kind in its low bits.
	before []uint64
}

func newPathSet() *pathSet {
	return &pathSet{seed: maphash.MakeSeed(), current: map[uint64]seenKind{}}
}

func (s *pathSet) key(p string) uint64 { return maphash.String(s.seed, p) &^ kindBits }

// record notes a path and its parents, refusing duplicates and paths whose
// parent is a file: both would make extraction depend on entry order.
func (s *pathSet) record(name string, isDir bool) string {
	top, _, _ := strings.Cut(name, "/")
	if !s.all && top != s.top {
		s.enter(top)
	}
	switch prev := s.current[s.key(name)]; {
	case prev == regularFile || prev == explicitDir:
		return "duplicate entry"
	case prev == impliedDir && !isDir:
		return "file where the archive has a directory"
	}
	if isDir {
		s.current[s.key(name)] = explicitDir
	} else {
		s.current[s.key(name)] = regularFile
	}
	for i := strings.LastIndexByte(name, '/'); i > 0; i = strings.LastIndexByte(name[:i], '/') {
		parent := name[:i]
		key := s.key(parent)
		switch s.current[key] {
		case regularFile:
			return "parent " + parent + " is a file"
		case 0:
			s.current[key] = impliedDir
		}
	}
	return ""
}

// enter leaves the current top-level directory for top.
func (s *pathSet) enter(top string) {
	if s.top == "" || sortsAfter(top, s.top) {
		for k, kind := range s.current {
			s.before = append(s.before, k|uint64(kind))
		}
		clear(s.current)
		s.top = strings.Clone(top)
		return
	}
	for _, k := range s.before {
		s.current[k&^kindBits] = seenKind(k & kindBits)
	}
	s.all, s.before = true, nil
}

// sortsAfter reports whether a+"/" sorts after b+"/", as stax orders the
// top-level directories of a layer.
func sortsAfter(a, b string) bool {
	n := min(len(a), len(b))
	if c := strings.Compare(a[:n], b[:n]); c != 0 {
		return c > 0
	}
	switch {
	case len(a) > n:
		return a[n] > '/'
	case len(b) > n:
		return '/' > b[n]
	}
	return false
}
