package layers

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A part of a tree is one of its top-level entries with everything under
// it: one skill of a skills layer. Layer order keeps the entries of a part
// together (a directory sorts as "name/", right before its children), so
// a tree can be scanned, checked and written one part at a time, and the
// memory that takes stays flat in the number of skills.

// Outline is what Outline.Write needs of a tree scanned by ScanParts once
// its parts are dropped: the totals the write limits apply to, the
// problems, and a fingerprint of each part, by which the write refuses a
// tree that changed since it was scanned.
type Outline struct {
	Root string
	// Size is the sum of the file sizes, as Tree.Size; Entries counts the
	// files and directories.
	Size    int64
	Entries int
	// Problems are sorted by path; Write refuses an outline that has any.
	Problems []Problem

	opts  ScanOptions
	parts []partPrint
	// refused is why Write would refuse an entry of a part (a file at the
	// top level), known when the part is scanned so that Write refuses
	// before writing anything.
	refused error
}

type partPrint [sha256.Size]byte

// ScanParts scans the tree under opts.Root as Scan does, one top-level
// entry at a time in layer order, and calls fn with each part that holds
// an entry or a problem: a Tree of that entry and everything under it, in
// layer order, with their problems sorted by path. fn must not keep the
// part, so that only one is held at a time. An error from fn ends the
// scan and is returned as is.
func ScanParts(opts ScanOptions, fn func(part *Tree) error) (*Outline, error) {
	s, tops, err := scanTops(opts)
	if err != nil {
		return nil, err
	}
	o := &Outline{Root: s.root, opts: opts}
	for _, top := range tops {
		part := s.part(top)
		if len(part.Entries) == 0 && len(part.Problems) == 0 {
			continue
		}
		o.add(part)
		if err := fn(part); err != nil {
			return nil, err
		}
	}
	slices.SortStableFunc(o.Problems, func(a, b Problem) int { return strings.Compare(a.Path, b.Path) })
	return o, nil
}

func (o *Outline) add(part *Tree) {
	for _, e := range part.Entries {
		if !e.Dir {
			o.Size += e.Size
		}
	}
	o.Entries += len(part.Entries)
	o.Problems = append(o.Problems, part.Problems...)
	if _, err := checkEntries(part.Entries, ""); err != nil && o.refused == nil {
		o.refused = err
	}
	o.parts = append(o.parts, fingerprint(part))
}

// fingerprint covers everything about a part that the layer or the
// checks before it depend on, except the bytes of its files. Paths hold no
// NUL byte, so NUL ends each field unambiguously.
func fingerprint(part *Tree) partPrint {
	b := binary.AppendUvarint(nil, uint64(len(part.Entries)))
	for _, e := range part.Entries {
		b = append(b, e.Path...)
		b = append(b, 0, flagByte(e.Dir), flagByte(e.Executable))
		b = binary.AppendVarint(b, e.Size)
		b = append(b, e.Source...)
		b = append(b, 0)
	}
	for _, p := range part.Problems {
		b = append(b, p.Path...)
		b = append(b, 0)
		b = append(b, p.Kind...)
		b = append(b, 0)
	}
	return sha256.Sum256(b)
}

func flagByte(set bool) byte {
	if set {
		return 1
	}
	return 0
}

// Write streams the tree o outlines as the package Write streams a Tree,
// byte for byte the same layer, scanning the tree again one part at a
// time; each, when set, is called with the file digests of each part once
// it is written. The result has no Files: they are each's to keep. Like
// Write, it refuses before writing anything an outline with problems or
// over the limits; a part that changed since it was outlined (an entry
// added, removed or resized, a new problem) fails the write, and the
// stream written so far then ends without a gzip trailer.
func (o *Outline) Write(w io.Writer, opts WriteOptions, each func(files []FileDigest) error) (WriteResult, error) {
	if err := checkTotals(o.Problems, o.Size, o.Entries, opts); err != nil {
		return WriteResult{}, err
	}
	if o.refused != nil {
		return WriteResult{}, o.refused
	}
	s, tops, err := scanTops(o.opts)
	if err != nil {
		return WriteResult{}, fmt.Errorf("write layer: %w", err)
	}
	lw, err := newLayerWriter(w)
	if err != nil {
		return WriteResult{}, err
	}
	prev, n := "", 0
	for _, top := range tops {
		part := s.part(top)
		if len(part.Entries) == 0 && len(part.Problems) == 0 {
			continue
		}
		if n == len(o.parts) || fingerprint(part) != o.parts[n] {
			return WriteResult{}, fmt.Errorf("write layer: %s changed since it was scanned; run again", top.disk)
		}
		n++
		if prev, err = checkEntries(part.Entries, prev); err != nil {
			return WriteResult{}, err
		}
		files, err := lw.write(part.Entries)
		if err != nil {
			return WriteResult{}, err
		}
		if each != nil {
			if err := each(files); err != nil {
				return WriteResult{}, err
			}
		}
	}
	if n != len(o.parts) {
		return WriteResult{}, fmt.Errorf("write layer: %s changed since it was scanned: an entry was removed; run again", s.root)
	}
	return lw.close()
}

// topEntry is a top-level entry of the tree, with its layer order key,
// the path on disk that holds it and the real path of the directory that
// path is in.
type topEntry struct {
	name, key, disk, realParent string
	// segs is disk relative to the package root, split.
	segs []string
}

// scanTops lists the top-level entries of the tree in layer order.
func scanTops(opts ScanOptions) (*scanner, []topEntry, error) {
	s, err := newScanner(opts)
	if err != nil {
		return nil, nil, fmt.Errorf("scan %s: %w", opts.Root, err)
	}
	var tops []topEntry
	if s.parts != nil {
		for name, disk := range s.parts {
			realParent, err := filepath.EvalSymlinks(filepath.Dir(disk))
			if err != nil {
				return nil, nil, fmt.Errorf("scan %s: %w", disk, err)
			}
			segs, err := relSegments(s.realPkgRoot, filepath.Join(realParent, filepath.Base(disk)))
			if err != nil {
				return nil, nil, fmt.Errorf("scan %s: %w", disk, err)
			}
			key := name
			if s.isDir(disk) {
				key += "/"
			}
			tops = append(tops, topEntry{name: name, key: key, disk: disk, realParent: realParent, segs: segs})
		}
	} else {
		children, err := os.ReadDir(s.root)
		if err != nil {
			return nil, nil, fmt.Errorf("scan %s: %w", opts.Root, err)
		}
		for _, c := range children {
			if opts.Only != "" && c.Name() != opts.Only {
				continue
			}
			disk := filepath.Join(s.root, c.Name())
			key := c.Name()
			if s.isDir(disk) {
				key += "/"
			}
			segs := append(slices.Clip(s.rootSegs), c.Name())
			tops = append(tops, topEntry{name: c.Name(), key: key, disk: disk, realParent: s.realRoot, segs: segs})
		}
	}
	slices.SortFunc(tops, func(a, b topEntry) int { return strings.Compare(a.key, b.key) })
	return s, tops, nil
}

// isDir reports whether the entry at diskPath goes into the layer as a
// directory, as visit decides it.
func (s *scanner) isDir(diskPath string) bool {
	fi, err := os.Lstat(diskPath)
	if err != nil {
		return false
	}
	if fi.Mode()&fs.ModeSymlink != 0 && s.flatten {
		link := s.resolve(diskPath)
		return link.info != nil && link.info.IsDir()
	}
	return fi.IsDir()
}

// part scans one top-level entry.
func (s *scanner) part(top topEntry) *Tree {
	s.entries, s.problems, s.topSegs = nil, nil, top.segs
	s.visit(top.disk, top.name, []string{top.realParent})
	slices.SortFunc(s.entries, func(a, b Entry) int { return strings.Compare(layerKey(a), layerKey(b)) })
	slices.SortStableFunc(s.problems, func(a, b Problem) int { return strings.Compare(a.Path, b.Path) })
	return &Tree{Root: s.root, Entries: s.entries, Problems: s.problems}
}
