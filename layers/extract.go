package layers

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// StagingPrefix starts the name of the directory Extract fills next to dest
// before moving it into place. A leftover one is debris of a crash.
const StagingPrefix = ".stax-staging-"

// Extract materializes a layer into dest, which must not exist or be an
// empty directory. Nothing appears at dest unless the whole layer checked out.
//
// The layer is extracted into a staging directory next to dest, which is
// renamed to dest once Walk, digest included, has accepted everything.
// Directories get mode 0755 and files 0644 or 0755 whatever the umask. The
// files are returned in archive order.
func Extract(r io.Reader, dest string, opts ReadOptions) ([]FileDigest, error) {
	dest = filepath.Clean(dest)
	existed, err := checkDest(dest)
	if err != nil {
		return nil, fmt.Errorf("extract layer to %s: %w", dest, err)
	}
	staging, err := os.MkdirTemp(filepath.Dir(dest), StagingPrefix+"*")
	if err != nil {
		return nil, fmt.Errorf("extract layer to %s: %w", dest, err)
	}
	files, err := extractInto(r, staging, opts)
	if err == nil {
		err = moveIntoPlace(staging, dest, existed)
	}
	if err != nil {
		os.RemoveAll(staging)
		return nil, fmt.Errorf("extract layer to %s: %w", dest, err)
	}
	return files, nil
}

// checkDest reports whether dest exists; an existing dest must be an empty
// directory, so that extraction never mixes with or replaces content.
func checkDest(dest string) (existed bool, err error) {
	fi, err := os.Lstat(dest)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !fi.IsDir() {
		return false, fmt.Errorf("%w: it is not a directory", ErrDestinationInUse)
	}
	d, err := os.Open(dest)
	if err != nil {
		return false, err
	}
	defer d.Close()
	if names, _ := d.Readdirnames(1); len(names) > 0 {
		return false, fmt.Errorf("%w: it is a directory that is not empty", ErrDestinationInUse)
	}
	return true, nil
}

func moveIntoPlace(staging, dest string, existed bool) error {
	// MkdirTemp creates 0700; the layer's directories are all 0755.
	if err := os.Chmod(staging, 0o755); err != nil {
		return err
	}
	if existed {
		if err := os.Remove(dest); err != nil {
			return err
		}
	}
	if err := os.Rename(staging, dest); err != nil {
		if existed {
			// Put back the empty directory the caller handed over.
			_ = os.Mkdir(dest, 0o755)
		}
		return err
	}
	return nil
}

// stagingWriter materializes checked entries under a staging directory,
// which holds nothing but what it creates. It writes through an *os.Root,
// so even a path that got past the checks could not leave it.
type stagingWriter struct {
	dirs map[string]bool // slash paths already created
	// hash hashes the files written, beside the writing; their digests
	// are filled in at the end.
	hash  *fileHasher
	files []FileDigest
	// umaskFree is set once a directory made 0755 came out 0755: modes
	// then need no chmod.
	umaskFree bool
	// open holds the directory of the last entry and each of its
	// parents, opened, the staging root first: a layer holds the entries
	// of a directory together, so each directory is created and each file
	// opened with one call relative to its parent, not one per path
	// element.
	open []openDir
}

type openDir struct {
	path string // slash path, "." for the root
	root *os.Root
}

func extractInto(r io.Reader, staging string, opts ReadOptions) ([]FileDigest, error) {
	root, err := os.OpenRoot(staging)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return ExtractTo(r, root, opts, nil)
}

// ExtractTo writes the entries of a layer that keep accepts (all of them
// when keep is nil) into root, a staging directory of the caller's that
// holds nothing else under the kept paths; the caller moves it into place,
// or removes it, once ExtractTo has returned, as the layer's digest is
// only verified at its end. Every entry is read and checked as Walk does,
// the skipped ones too. It returns the files written, in archive order,
// with modes set as Extract sets them.
func ExtractTo(r io.Reader, root *os.Root, opts ReadOptions, keep func(Header) bool) ([]FileDigest, error) {
	sw := &stagingWriter{dirs: map[string]bool{".": true}, hash: newFileHasher(), open: []openDir{{".", root}}}
	defer sw.closeDirs(1)
	err := Walk(r, opts, func(h Header, content io.Reader) error {
		if keep != nil && !keep(h) {
			return nil
		}
		return sw.entry(h, content)
	})
	digests := sw.hash.close()
	if err != nil {
		return nil, err
	}
	for i := range sw.files {
		sw.files[i].Digest = digests[i]
	}
	return sw.files, nil
}

func (sw *stagingWriter) entry(h Header, content io.Reader) error {
	if h.Dir {
		_, err := sw.enter(h.Path)
		return err
	}
	dir, err := sw.enter(path.Dir(h.Path))
	if err != nil {
		return err
	}
	fd, err := sw.writeFile(dir, h, content)
	if err != nil {
		return err
	}
	sw.files = append(sw.files, fd)
	return nil
}

// enter makes rel, and its missing parents, directories with mode 0755
// (past the umask, unlike os.MkdirAll), and returns it opened.
func (sw *stagingWriter) enter(rel string) (*os.Root, error) {
	// Leave the open directories rel is not in.
	n := len(sw.open)
	for n > 1 && !inDir(rel, sw.open[n-1].path) {
		n--
	}
	sw.closeDirs(n)
	for {
		top := sw.open[len(sw.open)-1]
		if top.path == rel {
			return top.root, nil
		}
		// The next element of rel below top.
		rest, child := rel, ""
		if top.path != "." {
			rest, child = rel[len(top.path)+1:], top.path+"/"
		}
		name, _, _ := strings.Cut(rest, "/")
		child += name
		if !sw.dirs[child] {
			if err := sw.mkdir(top.root, name); err != nil {
				return nil, err
			}
			sw.dirs[child] = true
		}
		dir, err := top.root.OpenRoot(name)
		if err != nil {
			return nil, err
		}
		sw.open = append(sw.open, openDir{child, dir})
	}
}

// inDir says whether the slash path rel is dir or lies under it.
func inDir(rel, dir string) bool {
	return dir == "." || rel == dir || strings.HasPrefix(rel, dir) && rel[len(dir)] == '/'
}

// mkdir creates name in parent with mode 0755.
func (sw *stagingWriter) mkdir(parent *os.Root, name string) error {
	if err := parent.Mkdir(name, 0o755); err != nil {
		return err
	}
	if sw.umaskFree {
		return nil
	}
	info, err := parent.Lstat(name)
	if err != nil {
		return err
	}
	if info.Mode().Perm() == 0o755 {
		// The umask clears no bit of 0755, so none of 0644 either.
		sw.umaskFree = true
		return nil
	}
	return parent.Chmod(name, 0o755)
}

// closeDirs closes the open directories past the first n.
func (sw *stagingWriter) closeDirs(n int) {
	for _, d := range sw.open[n:] {
		d.root.Close()
	}
	sw.open = sw.open[:n]
}

func (sw *stagingWriter) writeFile(dir *os.Root, h Header, content io.Reader) (FileDigest, error) {
	mode := fs.FileMode(fileMode(h.Executable))
	f, err := dir.OpenFile(path.Base(h.Path), os.O_CREATE|os.O_EXCL|os.O_WRONLY, mode)
	if err != nil {
		return FileDigest{}, err
	}
	n, err := sw.copyFile(f, content)
	if err == nil && !sw.umaskFree {
		err = f.Chmod(mode)
	}
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		return FileDigest{}, err
	}
	sw.hash.endFile()
	return FileDigest{Path: h.Path, Executable: h.Executable, Size: n}, nil
}

// copyFile writes content into f through the hasher's chunks.
func (sw *stagingWriter) copyFile(f *os.File, content io.Reader) (int64, error) {
	var n int64
	for {
		buf := sw.hash.space()
		m, err := content.Read(buf)
		if m > 0 {
			if _, werr := f.Write(buf[:m]); werr != nil {
				return n, werr
			}
			sw.hash.add(m)
			n += int64(m)
		}
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}
