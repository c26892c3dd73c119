package gitsource

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strconv"
	"strings"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/scratch"
	"github.com/stax-dev/stax/pkg/termtext"
)

// Tree is what Materialize wrote of a commit's SUBDIR.
type Tree struct {
	// Commit is the commit it was taken from.
	Commit string
	// Files counts the regular files and symbolic links written, Size
	// their bytes.
	Files int
	Size  int64
	// Gitlinks are the submodules in it, by path, which are not fetched
	// (git's tree names only their commit): for a warning.
	Gitlinks []string
}

// entry is one entry of a tree as git ls-tree lists it, its path
// relative to SUBDIR.
type entry struct {
	mode string
	kind string // blob, tree or commit (a gitlink)
	oid  string
	path string
}

// maxLinkTarget bounds the target of a symbolic link, as PATH_MAX does.
const maxLinkTarget = 4096

// Materialize writes the tree at r.Subdir of commit into dest, which must
// not exist or be an empty directory, whole or not at all: regular files
// with the modes git's tree gives them (100755 executable), symbolic
// links as links, none pointing out of the tree. It fetches into the
// cache only what the cache lacks (the commit and its trees, then the
// blobs under SUBDIR, each in one request): a commit cached before is
// written without touching the network. The tree is held to the limits
// of a skills layer (entries, path rules) before a blob is fetched, and
// to its size before one is read.
func (c *Cache) Materialize(ctx context.Context, r Reference, commit, dest string) (*Tree, error) {
	commit = strings.ToLower(commit)
	if !isCommitID(commit) {
		return nil, errdefs.Invalid(fmt.Errorf("%q is not a full commit id", commit))
	}
	dir, unlock, err := c.open(ctx, r)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if kind, _, _ := c.object(ctx, dir, commit); kind == "" {
		if err := c.fetch(ctx, dir, r, []string{commit}, true); err != nil {
			return nil, err
		}
	}
	tree, err := c.subtree(ctx, dir, r, commit)
	if err != nil {
		return nil, err
	}
	entries, gitlinks, err := c.entries(ctx, dir, r, tree)
	if err != nil {
		return nil, err
	}
	if err := c.fetchBlobs(ctx, dir, r, tree); err != nil {
		return nil, err
	}
	size, err := c.checkSizes(ctx, dir, r, entries)
	if err != nil {
		return nil, err
	}
	files := 0
	err = scratch.Stage(dest, ".stax-git-", func(out string) error {
		files, err = c.write(ctx, dir, entries, out)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &Tree{Commit: commit, Files: files, Size: size, Gitlinks: gitlinks}, nil
}

// Cached reports whether the cache holds commit and every blob under
// r.Subdir, so that Materialize would not touch the network. It does not
// either: git runs with no transport allowed.
func (c *Cache) Cached(ctx context.Context, r Reference, commit string) (bool, error) {
	dir := c.repoDir(r)
	if _, err := os.Stat(dir); err != nil {
		return false, nil
	}
	if kind, _, err := c.object(ctx, dir, strings.ToLower(commit)); kind != "commit" {
		return false, err
	}
	tree, err := c.subtree(ctx, dir, r, strings.ToLower(commit))
	if err != nil {
		return false, nil
	}
	missing, err := c.missing(ctx, dir, tree)
	return err == nil && len(missing) == 0, err
}

// object is the type and size of the object named by name in dir, or
// "" when the cache lacks it. git is given no transport, so a partial
// clone's lazy fetch of what it lacks fails at once.
func (c *Cache) object(ctx context.Context, dir, name string) (kind string, size int64, err error) {
	out, err := c.run(ctx, command{dir: dir, cwd: dir, stdin: strings.NewReader(name + "\n")}, "cat-file", "--batch-check=%(objectname) %(objecttype) %(objectsize)")
	if err != nil {
		return "", 0, errdefs.MarkLocal(fmt.Errorf("read the git cache %s: %w", dir, err))
	}
	f := strings.Fields(string(out))
	if len(f) != 3 {
		return "", 0, nil // "NAME missing"
	}
	size, err = strconv.ParseInt(f[2], 10, 64)
	return f[1], size, err
}

// subtree is the tree at r.Subdir of commit, which must be a commit.
func (c *Cache) subtree(ctx context.Context, dir string, r Reference, commit string) (string, error) {
	if kind, _, err := c.object(ctx, dir, commit); err != nil || kind != "commit" {
		return "", errdefs.MarkUnavailable(errors.Join(fmt.Errorf("git repository %s sent no commit %s", termtext.Escape(r.Display()), commit), err))
	}
	name := commit + "^{tree}"
	if r.Subdir != "" {
		name = commit + ":" + r.Subdir
	}
	out, err := c.run(ctx, command{dir: dir, cwd: dir, stdin: strings.NewReader(name + "\n")}, "cat-file", "--batch-check=%(objectname) %(objecttype)")
	if err != nil {
		return "", errdefs.MarkLocal(fmt.Errorf("read the git cache %s: %w", dir, err))
	}
	f := strings.Fields(string(out))
	if len(f) != 2 || f[1] != "tree" {
		return "", errdefs.Resolution(fmt.Errorf("git repository %s has no directory %s at commit %s", termtext.Escape(r.Display()), termtext.Escape(r.Subdir), commit))
	}
	return f[0], nil
}

// entries lists the tree under SUBDIR, every entry held to the rules of
// a skills layer before any blob is fetched: their number, and their
// paths. Gitlinks are set apart.
func (c *Cache) entries(ctx context.Context, dir string, r Reference, tree string) ([]entry, []string, error) {
	out, err := c.run(ctx, command{dir: dir, cwd: dir}, "ls-tree", "-r", "-t", "-z", "--end-of-options", tree)
	if err != nil {
		return nil, nil, errdefs.MarkUnavailable(fmt.Errorf("git repository %s sent an incomplete tree: %w", termtext.Escape(r.Display()), err))
	}
	var entries []entry
	var gitlinks []string
	for rec := range bytes.SplitSeq(bytes.TrimSuffix(out, []byte{0}), []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		meta, p, _ := strings.Cut(string(rec), "\t")
		f := strings.Fields(meta)
		if len(f) != 3 {
			return nil, nil, errdefs.MarkLocal(fmt.Errorf("git ls-tree wrote %q", rec))
		}
		e := entry{mode: f[0], kind: f[1], oid: f[2], path: p}
		if err := checkEntry(e); err != nil {
			return nil, nil, errdefs.Precondition(fmt.Errorf("git repository %s, %s: %w", termtext.Escape(r.Display()), termtext.Escape(r.String()), err))
		}
		if e.kind == "commit" {
			gitlinks = append(gitlinks, p)
			continue
		}
		if entries = append(entries, e); len(entries) > c.maxFiles() {
			return nil, nil, errdefs.Precondition(fmt.Errorf("git repository %s: %s holds more than %d files and directories, the limit of a package", termtext.Escape(r.Display()), termtext.Escape(r.String()), c.maxFiles()))
		}
	}
	return entries, gitlinks, nil
}

// checkEntry says why e cannot be written: its path breaks the rules of
// a layer's paths, names a .git, or its mode is none git writes.
func checkEntry(e entry) error {
	if err := layers.CheckPath(e.path); err != nil {
		return err
	}
	for seg := range strings.SplitSeq(e.path, "/") {
		if strings.EqualFold(seg, ".git") {
			return fmt.Errorf("%q: a .git inside a tree, which git itself refuses to write", e.path)
		}
	}
	switch e.mode + " " + e.kind {
	case "040000 tree", "100644 blob", "100755 blob", "100664 blob", "120000 blob", "160000 commit":
		return nil
	}
	return fmt.Errorf("%q: mode %s %s is not one of a git tree", e.path, termtext.Escape(e.mode), termtext.Escape(e.kind))
}

// missing lists the objects under tree that the cache lacks, without
// fetching them.
func (c *Cache) missing(ctx context.Context, dir, tree string) ([]string, error) {
	out, err := c.run(ctx, command{dir: dir, cwd: dir}, "rev-list", "--objects", "--missing=print", "--end-of-options", tree)
	if err != nil {
		return nil, errdefs.MarkLocal(fmt.Errorf("read the git cache %s: %w", dir, err))
	}
	var ids []string
	for line := range strings.Lines(string(out)) {
		if id, ok := strings.CutPrefix(strings.TrimSpace(line), "?"); ok {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// fetchBlobs fetches, in one request, the blobs under tree the cache
// lacks, and checks that the server sent every one.
func (c *Cache) fetchBlobs(ctx context.Context, dir string, r Reference, tree string) error {
	missing, err := c.missing(ctx, dir, tree)
	if err != nil || len(missing) == 0 {
		return err
	}
	if err := c.fetch(ctx, dir, r, missing, false); err != nil {
		return err
	}
	if missing, err = c.missing(ctx, dir, tree); err != nil || len(missing) == 0 {
		return err
	}
	return errdefs.MarkUnavailable(fmt.Errorf("git repository %s did not send %d of the files of %s (%s, …)", termtext.Escape(r.Display()), len(missing), termtext.Escape(r.String()), missing[0]))
}

// checkSizes adds up the sizes of the blobs entries name, as git's
// object store records them, and refuses a tree over the size limit
// before any is read.
func (c *Cache) checkSizes(ctx context.Context, dir string, r Reference, entries []entry) (int64, error) {
	var ids strings.Builder
	for _, e := range entries {
		if e.kind == "blob" {
			ids.WriteString(e.oid + "\n")
		}
	}
	out, err := c.run(ctx, command{dir: dir, cwd: dir, stdin: strings.NewReader(ids.String())}, "cat-file", "--batch-check=%(objecttype) %(objectsize)")
	if err != nil {
		return 0, errdefs.MarkLocal(fmt.Errorf("read the git cache %s: %w", dir, err))
	}
	var total int64
	for line := range strings.Lines(string(out)) {
		kind, sizeText, _ := strings.Cut(strings.TrimSpace(line), " ")
		size, err := strconv.ParseInt(sizeText, 10, 64)
		if kind != "blob" || err != nil || size < 0 {
			return 0, errdefs.MarkUnavailable(fmt.Errorf("git repository %s sent an object that is not a file where its tree names one", termtext.Escape(r.Display())))
		}
		if total += size; total > c.maxSize() {
			return 0, errdefs.Precondition(fmt.Errorf("git repository %s: %s holds over %d bytes, the limit of a package", termtext.Escape(r.Display()), termtext.Escape(r.String()), c.maxSize()))
		}
	}
	return total, nil
}

// write writes entries into out through os.Root, reading the blobs from
// one git cat-file --batch, and returns how many files and links it
// wrote.
func (c *Cache) write(ctx context.Context, dir string, entries []entry, out string) (int, error) {
	root, err := os.OpenRoot(out)
	if err != nil {
		return 0, errdefs.MarkLocal(err)
	}
	defer root.Close()
	var ids strings.Builder
	for _, e := range entries {
		if e.kind == "blob" {
			ids.WriteString(e.oid + "\n")
		}
	}
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := c.run(ctx, command{dir: dir, cwd: dir, stdin: strings.NewReader(ids.String()), stdout: pw}, "cat-file", "--batch")
		pw.CloseWithError(err)
		done <- err
	}()
	files, err := writeEntries(root, entries, bufio.NewReader(pr), c.maxSize())
	if err != nil {
		cancel() // git may be writing what is no longer read
	}
	pr.CloseWithError(errors.New("stopped reading"))
	if runErr := <-done; err == nil && runErr != nil {
		err = errdefs.MarkLocal(fmt.Errorf("read the git cache %s: %w", dir, runErr))
	}
	return files, err
}

// writeEntries writes entries into root, the content of their blobs read
// in order from blobs (git cat-file --batch), cut at limit bytes in all.
func writeEntries(root *os.Root, entries []entry, blobs *bufio.Reader, limit int64) (int, error) {
	files := 0
	var total int64
	for _, e := range entries {
		if e.kind == "tree" {
			if err := root.Mkdir(e.path, 0o755); err != nil {
				return files, errdefs.MarkLocal(err)
			}
			continue
		}
		size, err := blobHeader(blobs, e.oid)
		if err != nil {
			return files, err
		}
		if total += size; total > limit {
			return files, errdefs.Precondition(fmt.Errorf("the tree holds over %d bytes, the limit of a package", limit))
		}
		body := io.LimitReader(blobs, size)
		if e.mode == "120000" {
			err = writeLink(root, e.path, body, size)
		} else {
			err = writeFile(root, e, body)
		}
		if err != nil {
			return files, err
		}
		if _, err := blobs.Discard(1); err != nil { // the newline after the content
			return files, errdefs.MarkLocal(fmt.Errorf("git cat-file: %w", err))
		}
		files++
	}
	return files, nil
}

// blobHeader reads "OID blob SIZE" and checks it is the blob asked for.
func blobHeader(blobs *bufio.Reader, oid string) (int64, error) {
	line, err := blobs.ReadString('\n')
	if err != nil {
		return 0, errdefs.MarkLocal(fmt.Errorf("git cat-file: %w", err))
	}
	f := strings.Fields(line)
	if len(f) != 3 || f[0] != oid || f[1] != "blob" {
		return 0, errdefs.MarkLocal(fmt.Errorf("git cat-file wrote %q for %s", strings.TrimSpace(line), oid))
	}
	return strconv.ParseInt(f[2], 10, 64)
}

func writeFile(root *os.Root, e entry, body io.Reader) error {
	mode := os.FileMode(0o644)
	if e.mode == "100755" {
		mode = 0o755
	}
	f, err := root.OpenFile(e.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return errdefs.MarkLocal(err)
	}
	_, err = io.Copy(f, body)
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	return errdefs.MarkLocal(err)
}

// writeLink makes the symbolic link at p to the target body holds, which
// must stay inside the tree: relative, and not climbing above its root.
func writeLink(root *os.Root, p string, body io.Reader, size int64) error {
	if size > maxLinkTarget {
		return errdefs.Precondition(fmt.Errorf("symbolic link %q: its target is %d bytes long, over %d", p, size, maxLinkTarget))
	}
	target, err := io.ReadAll(body)
	if err != nil {
		return errdefs.MarkLocal(err)
	}
	t := string(target)
	resolved := path.Join(path.Dir(p), t)
	if t == "" || strings.ContainsAny(t, "\x00\\:") || path.IsAbs(t) || resolved == ".." || strings.HasPrefix(resolved, "../") {
		return errdefs.Precondition(fmt.Errorf("symbolic link %q points to %q, out of the tree: only links inside it are taken", p, t))
	}
	return errdefs.MarkLocal(root.Symlink(t, p))
}
