package layers

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// Problem kinds added to the contract of layers.go: paths the reader would
// refuse, and paths Scan could not read.
const (
	ProblemUnsafeName ProblemKind = "unsafe-name"
	ProblemUnreadable ProblemKind = "unreadable"
)

// Scan reads the tree under opts.Root. It returns an error only when the
// tree cannot be read at all; paths that cannot be packaged are Problems.
//
// Ignore patterns come from .staxignore in the package root, with
// gitignore semantics, matched against paths relative to the package root;
// an ignored directory is not descended. .git and .stax directories are
// never packaged, nor is the package root's .staxignore itself.
func Scan(opts ScanOptions) (*Tree, error) {
	t := &Tree{}
	outline, err := ScanParts(opts, func(part *Tree) error {
		t.Entries = append(t.Entries, part.Entries...)
		t.Problems = append(t.Problems, part.Problems...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	t.Root = outline.Root
	slices.SortFunc(t.Entries, func(a, b Entry) int { return strings.Compare(layerKey(a), layerKey(b)) })
	slices.SortStableFunc(t.Problems, func(a, b Problem) int { return strings.Compare(a.Path, b.Path) })
	return t, nil
}

// Size is the uncompressed size of the tree: the sum of its file sizes.
func (t *Tree) Size() int64 {
	var n int64
	for _, e := range t.Entries {
		if !e.Dir {
			n += e.Size
		}
	}
	return n
}

type scanner struct {
	flatten bool
	// root and the package root are absolute; the real* paths have their
	// symlinks resolved, for the cycle and escape checks.
	root, realRoot, realPkgRoot string
	// rootSegs is root relative to the package root, for ignore matching.
	rootSegs []string
	matcher  gitignore.Matcher
	// parts are opts.Parts, absolute; nil when Root's children are the
	// top-level entries.
	parts map[string]string
	// topSegs is the path of the part being scanned relative to the
	// package root, for ignore matching: its segments stand for the
	// first of a layer path's.
	topSegs []string
	// ignoreFiles are the paths under which the package root's ignore file
	// may be met during the walk.
	ignoreFiles []string

	entries  []Entry
	problems []Problem
}

// partDirs are the directories of opts.Parts, made absolute and checked
// to lie inside the package root, whose real path is realPkgRoot. Each
// name must pass CheckName: it is a skill directory of the layer, and the
// scan checks the name of a top-level entry only when it is one path
// element.
func partDirs(parts map[string]string, realPkgRoot string) (map[string]string, error) {
	out := make(map[string]string, len(parts))
	for name, dir := range parts {
		if err := CheckName(name); err != nil {
			return nil, fmt.Errorf("part: %w", err)
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, err
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			return nil, fmt.Errorf("part %s: %w", name, err)
		}
		if !within(real, realPkgRoot) {
			return nil, fmt.Errorf("part %s: %s is not inside package root %s", name, dir, realPkgRoot)
		}
		out[name] = abs
	}
	return out, nil
}

func newScanner(opts ScanOptions) (*scanner, error) {
	mode := opts.Symlinks
	if mode == "" {
		mode = SymlinkReject
	}
	if mode != SymlinkReject && mode != SymlinkFlatten {
		return nil, fmt.Errorf("unknown symlink mode %q", mode)
	}
	root, err := dirPath(opts.Root)
	if err != nil {
		return nil, err
	}
	pkgRoot := root
	if opts.PackageRoot != "" {
		if pkgRoot, err = dirPath(opts.PackageRoot); err != nil {
			return nil, fmt.Errorf("package root: %w", err)
		}
	}
	rootSegs, err := relSegments(pkgRoot, root)
	if err != nil {
		return nil, err
	}
	s := &scanner{flatten: mode == SymlinkFlatten, root: root, rootSegs: rootSegs}
	if s.realRoot, err = filepath.EvalSymlinks(root); err != nil {
		return nil, err
	}
	if s.realPkgRoot, err = filepath.EvalSymlinks(pkgRoot); err != nil {
		return nil, fmt.Errorf("package root: %w", err)
	}
	if opts.Parts != nil {
		if s.parts, err = partDirs(opts.Parts, s.realPkgRoot); err != nil {
			return nil, err
		}
	}
	ignoreFile := filepath.Join(pkgRoot, IgnoreFile)
	s.ignoreFiles = []string{ignoreFile, filepath.Join(s.realPkgRoot, IgnoreFile)}
	if s.matcher, err = loadIgnore(ignoreFile); err != nil {
		return nil, err
	}
	return s, nil
}

// dirPath returns the absolute form of p, which must be a directory.
func dirPath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory", p)
	}
	return abs, nil
}

// relSegments is root relative to pkgRoot, split into segments.
func relSegments(pkgRoot, root string) ([]string, error) {
	rel, err := filepath.Rel(pkgRoot, root)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, fmt.Errorf("root %s is not inside package root %s", root, pkgRoot)
	}
	if rel == "." {
		return nil, nil
	}
	return strings.Split(filepath.ToSlash(rel), "/"), nil
}

// walkDir visits the children of dir, whose layer path is layerDir. stack
// holds the real paths of the directories being walked, innermost last.
func (s *scanner) walkDir(dir, layerDir string, stack []string) error {
	children, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, c := range children {
		lp := c.Name()
		if layerDir != "" {
			lp = layerDir + "/" + lp
		}
		s.visit(filepath.Join(dir, c.Name()), lp, stack)
	}
	return nil
}

func (s *scanner) visit(diskPath, lp string, stack []string) {
	if slices.Contains(s.ignoreFiles, diskPath) {
		return
	}
	fi, err := os.Lstat(diskPath)
	if err != nil {
		s.problem(lp, ProblemUnreadable, err.Error())
		return
	}
	isSymlink := fi.Mode()&fs.ModeSymlink != 0
	var link resolvedLink
	isDir := fi.IsDir()
	if isSymlink && s.flatten {
		// Ignore rules see a flattened link as what it becomes in the layer.
		link = s.resolve(diskPath)
		isDir = link.info != nil && link.info.IsDir()
	}
	if (isDir && alwaysIgnored[fi.Name()]) || s.ignored(lp, isDir) {
		return
	}
	if reason := unsafeName(lp); reason != "" {
		s.problem(lp, ProblemUnsafeName, reason)
		return
	}
	if top := topLevelDir(lp, isDir); top == lp {
		var bad *UnsafeNameError
		if errors.As(CheckName(top), &bad) {
			s.problem(lp, ProblemUnsafeName, "skill directory name: "+bad.Reason)
			return
		}
	}
	switch {
	case fi.IsDir():
		s.addDir(lp, diskPath, filepath.Join(stack[len(stack)-1], fi.Name()), stack)
	case isSymlink && s.flatten:
		s.addLink(lp, link, stack)
	case isSymlink:
		target, _ := os.Readlink(diskPath)
		s.problem(lp, ProblemSymlink, "symbolic link to "+target)
	default:
		s.addNonDir(lp, diskPath, fi)
	}
}

func (s *scanner) ignored(lp string, isDir bool) bool {
	_, rest, _ := strings.Cut(lp, "/")
	segs := slices.Clip(s.topSegs)
	if rest != "" {
		segs = append(segs, strings.Split(rest, "/")...)
	}
	return len(segs) > 0 && s.matcher.Match(segs, isDir)
}

func (s *scanner) addDir(lp, diskPath, realPath string, stack []string) {
	s.entries = append(s.entries, Entry{Path: lp, Dir: true, Source: diskPath})
	if err := s.walkDir(diskPath, lp, append(slices.Clip(stack), realPath)); err != nil {
		s.problem(lp, ProblemUnreadable, err.Error())
	}
}

// addNonDir records a regular file, or the problem with anything else.
func (s *scanner) addNonDir(lp, diskPath string, fi fs.FileInfo) {
	mode := fi.Mode()
	switch {
	case mode.IsRegular() && linkCount(fi) > 1:
		s.problem(lp, ProblemHardlink, fmt.Sprintf("file has %d hard links", linkCount(fi)))
	case mode.IsRegular():
		s.entries = append(s.entries, Entry{
			Path: lp, Size: fi.Size(), Source: diskPath,
			Executable: mode.Perm()&0o111 != 0,
		})
	case mode&fs.ModeCharDevice != 0:
		s.problem(lp, ProblemDevice, "character device")
	case mode&fs.ModeDevice != 0:
		s.problem(lp, ProblemDevice, "block device")
	case mode&fs.ModeNamedPipe != 0:
		s.problem(lp, ProblemFIFO, "named pipe")
	case mode&fs.ModeSocket != 0:
		s.problem(lp, ProblemSocket, "unix socket")
	default:
		s.problem(lp, ProblemIrregular, "irregular file of mode "+mode.String())
	}
}

// resolvedLink is where a symlink leads, or why it cannot be flattened.
type resolvedLink struct {
	target string
	info   fs.FileInfo // nil when kind is set
	kind   ProblemKind
	detail string
}

func (s *scanner) resolve(diskPath string) resolvedLink {
	raw, _ := os.Readlink(diskPath)
	target, err := filepath.EvalSymlinks(diskPath)
	if err != nil {
		if isLinkLoop(err) {
			return resolvedLink{kind: ProblemSymlinkCycle, detail: "symbolic link to " + raw + " loops"}
		}
		return resolvedLink{kind: ProblemDanglingSymlink, detail: "symbolic link to " + raw + " leads nowhere"}
	}
	if !within(target, s.realPkgRoot) {
		return resolvedLink{kind: ProblemSymlinkEscape, detail: "symbolic link to " + raw + " resolves outside the package root"}
	}
	fi, err := os.Lstat(target)
	if err != nil {
		return resolvedLink{kind: ProblemDanglingSymlink, detail: "symbolic link to " + raw + ": " + err.Error()}
	}
	return resolvedLink{target: target, info: fi}
}

func (s *scanner) addLink(lp string, link resolvedLink, stack []string) {
	switch {
	case link.info == nil:
		s.problem(lp, link.kind, link.detail)
	case link.info.IsDir() && onStack(link.target, stack):
		s.problem(lp, ProblemSymlinkCycle, "symbolic link to "+link.target+", which contains the link itself")
	case link.info.IsDir():
		s.addDir(lp, link.target, link.target, stack)
	default:
		s.addNonDir(lp, link.target, link.info)
	}
}

// onStack reports whether walking dir would reach a directory being walked
// again: dir is one of them or an ancestor of one.
func onStack(dir string, stack []string) bool {
	for _, d := range stack {
		if within(d, dir) {
			return true
		}
	}
	return false
}

// within reports whether p is dir or lies under it; both are clean.
func within(p, dir string) bool {
	if p == dir {
		return true
	}
	if !strings.HasSuffix(dir, string(filepath.Separator)) {
		dir += string(filepath.Separator)
	}
	return strings.HasPrefix(p, dir)
}

// isLinkLoop recognizes EvalSymlinks giving up on a chain of links, which it
// reports with a plain error rather than ELOOP.
func isLinkLoop(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "too many links") || strings.Contains(msg, "too many levels of symbolic links")
}

func (s *scanner) problem(lp string, kind ProblemKind, detail string) {
	s.problems = append(s.problems, Problem{Path: lp, Kind: kind, Detail: detail})
}
