// Package layers is the deterministic tar+gzip codec shared by every
// tar-backed stax layer, and the rules of the skills layer.
//
// Writing is split in two steps so that callers can validate before any byte
// is produced: Scan turns a directory into a Tree (every entry, in layer
// order, plus every problem that keeps it from being packaged), and Write
// streams a Tree as tar+gzip through a hasher. Reading is the mirror image:
// Walk streams the entries of a hostile archive after checking each one, and
// Extract materializes them through a staging directory.
package layers

import (
	"io"
	"strconv"

	"github.com/opencontainers/go-digest"
)

// Media types and annotations of the skills layer.
const (
	MediaTypeSkills       = "application/vnd.stax.skills.v1.tar+gzip"
	AnnotationSkillsCount = "dev.stax.skills.count"
	SkillsLayerTitle      = "skills.tar.gz"
)

// Limits of the skills layer.
const (
	// DefaultMaxSize bounds the uncompressed size of a layer: the sum of the
	// sizes of its regular files.
	DefaultMaxSize int64 = 64 << 20
	// LargeFileSize is the size past which a single file draws a warning.
	LargeFileSize int64 = 10 << 20
	// DefaultMaxFiles bounds the entries (files and directories) of a
	// layer. A library of 5,000 skills has about 20,000 files and 10,000
	// directories; the anthropics/skills corpus, 409 files. Empty files
	// cost no size, so without it a layer of millions of them would pass.
	DefaultMaxFiles = 50_000
)

// Limits bound what stax reads or builds of a package, wherever it is:
// the flags fill them once, and every step that reads a package or a
// layer takes them as they are. The zero value is the defaults.
type Limits struct {
	// MaxSize bounds a package: each blob fetched, and the uncompressed
	// size of its skills layer. 0 is DefaultMaxSize; negative, no limit.
	MaxSize int64
	// MaxFiles bounds the entries (files and directories) of a skills
	// layer. 0 is DefaultMaxFiles; negative, no limit.
	MaxFiles int
}

// IgnoreFile holds gitignore-style patterns, read from the package root.
const IgnoreFile = ".staxignore"

// SymlinkMode says what Scan does with symbolic links.
type SymlinkMode string

const (
	// SymlinkReject reports every symbolic link as a Problem.
	SymlinkReject SymlinkMode = "reject"
	// SymlinkFlatten packages the bytes (or directory tree) a link resolves
	// to, when that target lies inside the package root.
	SymlinkFlatten SymlinkMode = "flatten"
)

// ScanOptions selects the tree to scan.
type ScanOptions struct {
	// Root is the directory whose contents become the layer.
	Root string
	// PackageRoot is where .staxignore is read, and the boundary flattened
	// symlinks must resolve inside. Empty means Root. Root must be inside it.
	PackageRoot string
	// Symlinks is SymlinkReject when empty.
	Symlinks SymlinkMode
	// Only, when set, is the name of the one top-level entry of Root
	// that is scanned, the others left unread: one skill checked alone,
	// in the skills directory that decides its .staxignore and name.
	Only string
	// Parts, when set, are the top-level entries of the layer in place of
	// Root's children: each name is the directory on disk that holds that
	// entry, inside PackageRoot. It builds a package of skills laid out
	// for other tools (skills/NAME, a plugin's paths, a SKILL.md at a
	// repository's root) as the skills directory of those skills would
	// be packed. The package root's .staxignore applies to each part at
	// its path on disk.
	Parts map[string]string
}

// Entry is one directory or regular file of a layer.
type Entry struct {
	// Path is slash-separated and relative to the layer root, without a
	// trailing slash for directories.
	Path       string
	Dir        bool
	Executable bool
	Size       int64
	// Source is the file on disk that holds the bytes: the entry itself, or
	// the resolved target of a flattened symlink.
	Source string
}

// ProblemKind names why a path cannot go into a layer.
type ProblemKind string

const (
	ProblemSymlink         ProblemKind = "symlink"
	ProblemHardlink        ProblemKind = "hardlink"
	ProblemDevice          ProblemKind = "device"
	ProblemFIFO            ProblemKind = "fifo"
	ProblemSocket          ProblemKind = "socket"
	ProblemIrregular       ProblemKind = "irregular"
	ProblemDanglingSymlink ProblemKind = "symlink-dangling"
	ProblemSymlinkEscape   ProblemKind = "symlink-escape"
	ProblemSymlinkCycle    ProblemKind = "symlink-cycle"
)

// Problem is a path of the scanned tree that cannot be packaged.
type Problem struct {
	// Path is slash-separated and relative to the layer root.
	Path string
	Kind ProblemKind
	// Detail describes the path (what a link points to, how many links a
	// file has); the fix is the caller's to phrase, in its own terms.
	Detail string
}

// Tree is a scanned directory, ready to be written.
type Tree struct {
	Root string
	// Entries are in layer order: sorted by the raw bytes of their paths,
	// each directory compared as "path/" so it comes right before its children.
	Entries []Entry
	// Problems are sorted by path; Write refuses a tree that has any.
	Problems []Problem
}

// WriteOptions bounds what Write accepts.
type WriteOptions struct {
	Limits
}

// FileDigest is the record of one regular file: its path, its mode (the
// execute bit is the only permission a layer keeps) and its content
// digest. The codec, diff and the install record all describe a file by
// it.
type FileDigest struct {
	Path       string
	Executable bool
	Size       int64
	Digest     digest.Digest
}

// Mode is the file's mode as the skill digest writes it: "755" or "644".
func (f FileDigest) Mode() string { return strconv.FormatInt(fileMode(f.Executable), 8) }

// Record is the file's mode and digest, "<mode> <digest>", as the install
// record keeps them.
func (f FileDigest) Record() string { return f.Mode() + " " + f.Digest.String() }

// WriteResult describes the compressed layer Write produced.
type WriteResult struct {
	Digest digest.Digest
	Size   int64
	// Files are in layer order.
	Files []FileDigest
}

// ReadOptions bounds what the reader accepts. An entry past MaxFiles is
// refused before fn sees it.
type ReadOptions struct {
	Limits
	// Digest, when set, is checked against the compressed stream.
	Digest digest.Digest
	// Verified says that the reader handed to Walk checks Digest (and
	// the size) itself, as artifact.VerifyReader does, failing with
	// content.ErrMismatchedDigest at the latest when it reaches its end,
	// or that its caller does, as store.TeeBlob does: Walk then does not
	// hash the stream a second time. Install reads every layer so, and
	// hashing 47 MB of layers twice was a tenth of its CPU time.
	Verified bool
	// Inspect, when set, checks the content of files as fn reads it: it
	// is called with a file's path, and the writer it returns sees the
	// content (see inspectedContent).
	Inspect func(path string) io.WriteCloser
}

// Header is one checked entry of an archive being read.
type Header struct {
	Path       string
	Dir        bool
	Executable bool
	Size       int64
}
