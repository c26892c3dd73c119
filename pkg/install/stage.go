package install

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/internal/bytesize"
	"github.com/stax-dev/stax/internal/inorder"
	"github.com/stax-dev/stax/internal/regularfile"
	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/skill"
	"github.com/stax-dev/stax/pkg/stateful"
	"github.com/stax-dev/stax/pkg/substitute"
)

// Layer is a package's skills layer. The skills an install must stage
// are extracted from it straight into the folder's staging directory:
// the layer is read once per folder, and only if one of its skills is
// new or changed; entries of other skills are skipped unwritten.
type Layer struct {
	// Name says which package, in messages.
	Name string
	// Open calls read with the layer's compressed bytes, and returns its
	// error, or why the bytes could not be had; a layer that does not
	// match its digest is explained there (whose copy is corrupt, and the
	// fix).
	Open func(ctx context.Context, read func(io.Reader) error) error
	// Ready, when set, returns once Open would not wait for the layer to
	// arrive (an install's packages are still being stored as it stages),
	// or with why it cannot be had. Layers with Ready are extracted as
	// they become ready rather than in their order, so that the layers
	// downloaded first are not held up behind one still downloading.
	Ready func(ctx context.Context) error
	// Read bounds the layer and, with its Digest, verifies it; the
	// staged skills are discarded if it does not verify.
	Read layers.ReadOptions
}

// staged is a skill written into the staging directory: its record
// entries as written, and the digest of its files as the package had
// them (before variable substitution), to check against Skill.Digest.
type staged struct {
	skill    *Skill
	finished bool // read whole from its layer
	// *writing is set from the skill's first directory made until its
	// entry is settled: only the skills being written hold their files.
	*writing
}

type writing struct {
	files map[string]string
	stat  map[string]string
	orig  []layers.FileDigest
	dirs  map[string]bool // slash paths under dir already made
	// placeless is set when its SKILL.md uses no path variable: it is
	// the same bytes wherever the folder is.
	placeless bool
	// version is the SKILL.md version of a skill whose MEMORY.md is
	// merged: the merged file's version follows it.
	version string
	// memory is what the record keeps of its MEMORY.md as the package
	// has it, before any merge; nil without one.
	memory *InstalledMemory
	// skillFile is its SKILL.md as written, when the stager keeps it.
	skillFile []byte
}

// stageBufferSize is the size of a stager's buffer: a layer's content is
// read from chunks of layers' read-ahead, a read never returns more than
// one, and a larger buffer would only be held by each stager extracting
// at once.
const stageBufferSize = 64 << 10

// stager writes skills into the staging directory, hashing each file as
// it is written, through one reusable buffer.
type stager struct {
	folder *os.Root
	// staging is the staging directory's name in folder.
	staging string
	// stagingDir is the staging directory opened as a root while stage
	// runs, shared with the forks: a skill's directory is made and
	// opened in it in one step each, not through the folder.
	stagingDir *os.Root
	// vars are the values substituted into a skill's SKILL.md.
	vars func(*Skill) substitute.Options
	buf  []byte
	// umaskFree is set once a directory made 0755 came out 0755: the
	// umask takes no bit of 0755 or 0644, and modes need no fixing.
	umaskFree bool
	// current is the skill last written to, and root its directory
	// opened as a root of its own: inside it a path resolves in one or
	// two steps, not through the staging directory each time.
	current *staged
	root    *os.Root
	// merge, when set, says whether a skill's MEMORY.md is to be merged
	// with the user's copy (see plan.mergeMemory), and does it once all of
	// the skill is staged.
	merge interface {
		wants(sk *staged) bool
		merge(sk *staged, root *os.Root) error
	}
	// done, when set, is called with each skill once all of it is
	// staged, under settling; the skill's files and stat are not used
	// after.
	done func(*staged) error
	// settled, when set, is called with each skill after done, once
	// settling is released: work of the caller's that needs no lock
	// does not hold up the stagers of other layers.
	settled func(*staged) error
	// settling is held while a skill's MEMORY.md is merged and done is
	// called: stagers extracting layers at once share it, as they share
	// the plan those change.
	settling *sync.Mutex
	// asPackaged writes each file as its package holds it, into a folder
	// no runtime reads (see WriteFolder): no path is substituted, and
	// nothing of a file is checked but the skill's digest.
	asPackaged bool
	// keepSkillFile keeps each skill's SKILL.md as written (see
	// WriteFolderFiles).
	keepSkillFile bool
}

// fork is a stager for another layer extracted at the same time as st's:
// it shares where and how skills are staged and settled, and has a
// buffer and open directory of its own.
func (st *stager) fork() *stager {
	return &stager{folder: st.folder, staging: st.staging, stagingDir: st.stagingDir, vars: st.vars, buf: make([]byte, stageBufferSize),
		merge: st.merge, done: st.done, settled: st.settled, settling: st.settling, asPackaged: st.asPackaged, keepSkillFile: st.keepSkillFile}
}

// in returns the root of sk's directory, made if needed.
func (st *stager) in(sk *staged) (*os.Root, error) {
	if st.current == sk {
		return st.root, nil
	}
	st.close()
	if err := st.mkdirs(sk, "."); err != nil {
		return nil, err
	}
	root, err := st.stagingDir.OpenRoot(sk.skill.Path)
	if err != nil {
		return nil, err
	}
	st.current, st.root = sk, root
	return root, nil
}

func (st *stager) close() {
	if st.root != nil {
		st.root.Close()
	}
	st.current, st.root = nil, nil
}

// newStaged is a skill to stage; its maps are made as it is written, so
// that the skills waiting for their layer take little each.
func newStaged(s *Skill) *staged {
	return &staged{skill: s}
}

// finish records the stat of the skill's directories, now that all of it
// is written, drops what only writing it needed, so that staging many
// skills keeps little of each, and hands it to done, then settled.
func (st *stager) finish(sk *staged) error {
	root, err := st.in(sk)
	if err != nil {
		return err
	}
	if sk.stat == nil {
		sk.files, sk.stat = map[string]string{}, map[string]string{}
	}
	if err := st.settle(sk, root); err != nil {
		return err
	}
	if st.settled == nil {
		return nil
	}
	return st.settled(sk)
}

// settle merges the MEMORY.md of sk, written in root, when it is to be,
// records the stat of its directories and hands it to done, under
// settling.
func (st *stager) settle(sk *staged, root *os.Root) error {
	st.settling.Lock()
	defer st.settling.Unlock()
	if st.merge != nil && st.merge.wants(sk) {
		if err := st.merge.merge(sk, root); err != nil {
			return err
		}
	}
	for rel := range sk.dirs {
		info, err := root.Lstat(filepath.FromSlash(rel))
		if err != nil {
			return err
		}
		sk.stat[rel+"/"] = statKey(info)
	}
	sk.orig, sk.dirs = nil, nil
	if st.done == nil {
		return nil
	}
	return st.done(sk)
}

// mkdirs makes a directory of the skill and its missing parents, 0755
// past the umask.
func (st *stager) mkdirs(sk *staged, rel string) error {
	if sk.writing == nil {
		sk.writing = &writing{}
	}
	if sk.dirs[rel] {
		return nil
	}
	in, name := st.stagingDir, sk.skill.Path
	if rel != "." {
		if err := st.mkdirs(sk, path.Dir(rel)); err != nil {
			return err
		}
		root, err := st.in(sk)
		if err != nil {
			return err
		}
		in, name = root, filepath.FromSlash(rel)
	}
	if err := in.Mkdir(name, 0o755); err != nil {
		return err
	}
	if sk.dirs == nil {
		sk.dirs = map[string]bool{}
	}
	if !st.umaskFree {
		info, err := in.Lstat(name)
		if err != nil {
			return err
		}
		if info.Mode().Perm() == 0o755 {
			st.umaskFree = true
		} else if err := in.Chmod(name, 0o755); err != nil {
			return err
		}
	}
	sk.dirs[rel] = true
	return nil
}

// file writes one file of a skill, rel a slash path inside it; the
// skill's SKILL.md gets its path variables resolved.
func (st *stager) file(sk *staged, rel string, executable bool, r io.Reader) error {
	if err := st.mkdirs(sk, path.Dir(rel)); err != nil {
		return err
	}
	mode := fs.FileMode(0o644)
	if executable {
		mode = 0o755
	}
	var orig hash.Hash
	merging := st.merge != nil && st.merge.wants(sk)
	if rel == skill.FileName && !st.asPackaged {
		orig = sha256.New()
		text, err := st.skillMD(sk, io.TeeReader(r, orig))
		if err != nil {
			return err
		}
		if merging {
			if doc, err := skill.Parse([]byte(text)); err == nil {
				sk.version = doc.Frontmatter.Version
			}
		}
		r = strings.NewReader(text)
	}
	if rel == stateful.MemoryFile && merging {
		// Rewritten once merged: the skill's digest is of the package's.
		orig = sha256.New()
		r = io.TeeReader(r, orig)
	}
	if stateful.IsSibling(rel) && !st.asPackaged {
		r = &statefulLimit{r: r, left: stateful.MaxFileSize, name: rel}
	}
	// The package's MEMORY.md is read as it is written, for the record to
	// keep the base of a later merge of its frontmatter (see mergeFields).
	var memory *bytes.Buffer
	if rel == stateful.MemoryFile && !st.asPackaged {
		memory = &bytes.Buffer{}
		r = io.TeeReader(r, memory)
	}
	var skillFile *cappedBuffer
	if rel == skill.FileName && st.keepSkillFile {
		skillFile = &cappedBuffer{limit: skill.MaxFileSize}
		r = io.TeeReader(r, skillFile)
	}
	root, err := st.in(sk)
	if err != nil {
		return err
	}
	f, err := root.OpenFile(filepath.FromSlash(rel), os.O_WRONLY|os.O_CREATE|os.O_EXCL|createFlag, mode)
	if err != nil {
		return err
	}
	defer f.Close()
	written := sha256.New()
	if _, err := io.CopyBuffer(io.MultiWriter(f, written), r, st.buf); err != nil {
		return err
	}
	if !st.umaskFree {
		if err := f.Chmod(mode); err != nil {
			return err
		}
	}
	info, err := f.Stat()
	if err != nil {
		return err
	}
	d := digest.NewDigest(digest.SHA256, written)
	if sk.files == nil {
		sk.files, sk.stat = map[string]string{}, map[string]string{}
	}
	sk.files[rel] = fileEntry(mode, d)
	sk.stat[rel] = statKey(info)
	if skillFile != nil && !skillFile.over {
		sk.skillFile = skillFile.Bytes()
	}
	if memory != nil {
		if base := stateful.FieldDigests(memory.Bytes()); base != nil {
			sk.memory = &InstalledMemory{Fields: base}
		}
	}
	if orig != nil {
		d = digest.NewDigest(digest.SHA256, orig)
	}
	sk.orig = append(sk.orig, layers.FileDigest{Path: rel, Executable: executable, Digest: d})
	return f.Close()
}

// cappedBuffer keeps what is written to it up to limit bytes; past it,
// over is set and nothing more is kept: a SKILL.md that large is read
// from its file, to be refused, as any other.
type cappedBuffer struct {
	bytes.Buffer
	limit int
	over  bool
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if b.over || b.Len()+len(p) > b.limit {
		b.over = true
		b.Reset()
		return len(p), nil
	}
	return b.Buffer.Write(p)
}

// skillMD reads the SKILL.md of sk from r and returns it with its path
// variables resolved. A SKILL.md over the limits every command loads
// skills with is refused, before a byte is written: installed, it would
// be a skill no runtime or stax command loads. So is one that resolving
// the paths would push past skill.MaxFileSize.
func (st *stager) skillMD(sk *staged, r io.Reader) (string, error) {
	data, err := io.ReadAll(io.LimitReader(r, skill.MaxFileSize+1))
	if err != nil {
		return "", err
	}
	// A SKILL.md no command and no runtime could load is refused here
	// rather than installed for list to say so: one over a limit, or
	// whose frontmatter is not YAML (control characters, which YAML
	// forbids and stax push refuses, bytes that are not UTF-8). Callers
	// name the skill or the layer path. One parse says both, where
	// every SKILL.md was parsed twice.
	_, err = skill.Parse(data)
	switch {
	case errors.Is(err, skill.ErrTooLarge):
		return "", errdefs.Precondition(err)
	case errors.Is(err, skill.ErrYAML):
		return "", errdefs.Precondition(fmt.Errorf("%w: no runtime can load it; its publisher must fix it", err))
	}
	orig := string(data)
	sk.placeless = !substitute.UsesPaths(orig)
	text, err := substitute.ApplyLimit(orig, st.vars(sk.skill), skill.MaxFileSize)
	if err != nil {
		return "", errdefs.Precondition(fmt.Errorf("%s would be over the limit of %s once %s and %s are resolved; use them fewer times",
			skill.FileName, bytesize.Format(skill.MaxFileSize), substitute.SkillDir, substitute.Workspace))
	}
	return text, nil
}

// statefulLimit refuses a stateful sibling (MEMORY.md, EXAMPLES.md,
// CALIBRATION.md) past stateful.MaxFileSize while it is written: render,
// show and the MCP server read no more of one, so installing a larger one
// would install a skill they refuse.
type statefulLimit struct {
	r    io.Reader
	left int64
	name string
}

func (l *statefulLimit) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	if l.left -= int64(n); l.left < 0 {
		return n, errdefs.Precondition(fmt.Errorf("%s is over the limit of %s that render and the MCP server read of it: %w",
			l.name, bytesize.Format(stateful.MaxFileSize), skill.ErrTooLarge))
	}
	return n, err
}

// copyDir stages a skill from a directory holding its files. Modes are
// normalized as in a layer: 0755 for directories and executables, 0644
// otherwise.
func (st *stager) copyDir(sk *staged) error {
	src := sk.skill.Source
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			return st.mkdirs(sk, rel)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if !info.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file", p)
		}
		// Checked again on the descriptor: the file may be replaced by a
		// named pipe after the walk saw it.
		in, err := regularfile.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		return st.file(sk, rel, info.Mode()&0o111 != 0, in)
	})
}

// extract stages the skills of want from one layer, read once; entries
// of other skills are skipped. Each skill's files must hash to the digest
// its package records, and the whole layer to its descriptor's. A skill
// is done when the layer moves on to the next one: writers put the
// entries of a skill together, and a layer whose skills are split is
// refused.
func (st *stager) extract(ctx context.Context, l *Layer, want pathIndex[*staged]) error {
	var open *staged
	var mismatch []error
	finish := func() error {
		if open == nil {
			return nil
		}
		sk := open
		open, sk.finished = nil, true
		if got := layers.TreeDigest(sk.orig); len(sk.orig) == 0 || got != sk.skill.Digest {
			// Reported once the layer is read: a split skill is said as such.
			mismatch = append(mismatch, fmt.Errorf("skill %s of %s: its files hash to %s, but the package config records %s", sk.skill.Path, l.Name, got, sk.skill.Digest))
			return nil
		}
		return st.finish(sk)
	}
	walk := func(h layers.Header, content io.Reader) error {
		top, rest, _ := strings.Cut(h.Path, "/")
		sk := want.get(top)
		if sk == nil {
			return nil
		}
		if sk != open {
			if sk.finished {
				return &layers.UnsafeEntryError{Path: h.Path, Reason: "the entries of skill " + top + " are not together: stax reads layers whose skills are written one after the other"}
			}
			if err := finish(); err != nil {
				return err
			}
			open = sk
		}
		if h.Dir {
			if rest == "" {
				rest = "."
			}
			return st.mkdirs(sk, rest)
		}
		// Walk refuses a file at the top of the layer: every file is inside a skill.
		return st.file(sk, rest, h.Executable, content)
	}
	var read bool
	err := l.Open(ctx, func(r io.Reader) error {
		read = true
		err := layers.Walk(r, l.Read, walk)
		if err == nil {
			err = finish()
		}
		return err
	})
	if err != nil && !read {
		return err // the layer could not be had: nothing was extracted
	}
	if err != nil {
		return errdefs.With(layers.Class(err), fmt.Errorf("extract %s (layer %s): %w", l.Name, l.Read.Digest, err))
	}
	for _, sk := range want.items {
		if !sk.finished {
			mismatch = append(mismatch, fmt.Errorf("skill %s of %s: the layer holds none of its files, but the package config records %s", sk.skill.Path, l.Name, sk.skill.Digest))
		}
	}
	if len(mismatch) > 0 {
		return errdefs.MarkDataLoss(mismatch[0])
	}
	return nil
}

// stage writes every skill of todo into the staging directory: those with
// a Source from their directory, one after another, then the others from
// their layers, each layer read once, up to workers layers at once (0 is
// layers.ExtractWorkers()), each by a stager of its own. The error is the
// one a serial run reports: the Source skills' first, else the first
// layer's in order that failed.
func (st *stager) stage(ctx context.Context, todo []*staged, workers int) error {
	defer st.close()
	if st.settling == nil {
		st.settling = new(sync.Mutex)
	}
	dir, err := st.folder.OpenRoot(st.staging)
	if err != nil {
		return errdefs.MarkLocal(err)
	}
	st.stagingDir = dir
	defer func() {
		dir.Close()
		st.stagingDir = nil
	}()
	var order []*Layer
	byLayer := map[*Layer][]*staged{}
	for _, sk := range todo {
		if sk.skill.Layer == nil {
			if err := st.mkdirs(sk, "."); err != nil {
				return errdefs.MarkLocal(fmt.Errorf("stage skill %s: %w", sk.skill.Path, err))
			}
			if err := st.copyDir(sk); err != nil {
				return errdefs.MarkLocal(fmt.Errorf("stage skill %s: %w", sk.skill.Path, err))
			}
			if err := st.finish(sk); err != nil {
				return errdefs.MarkLocal(fmt.Errorf("stage skill %s: %w", sk.skill.Path, err))
			}
			continue
		}
		if byLayer[sk.skill.Layer] == nil {
			order = append(order, sk.skill.Layer)
		}
		byLayer[sk.skill.Layer] = append(byLayer[sk.skill.Layer], sk)
	}
	st.close()
	groups := make([][]*staged, len(order))
	for i, l := range order {
		groups[i] = byLayer[l]
	}
	clear(byLayer)
	if workers < 1 {
		workers = layers.ExtractWorkers()
	}
	twice := pathTwice(todo)
	if twice {
		// Which of two layers staging one path fails would depend on
		// timing: one after the other, in order, the second always does.
		workers = 1
	}
	idle := make(chan *stager, workers) // at most workers run at once
	idle <- st
	extract := func(ctx context.Context, i int) error {
		var w *stager
		select {
		case w = <-idle:
		default:
			w = st.fork()
		}
		defer func() {
			w.close()
			idle <- w
		}()
		of := groups[i]
		groups[i] = nil // held by want until the layer is read
		want := newPathIndex(len(of), func(i int) *staged { return of[i] }, func(sk *staged) string { return sk.skill.Path })
		return w.extract(ctx, order[i], want)
	}
	if twice || !slices.ContainsFunc(order, func(l *Layer) bool { return l.Ready != nil }) {
		return inorder.Concurrently(ctx, len(order), workers, extract)
	}
	ready := func(ctx context.Context, i int) error {
		if order[i].Ready == nil {
			return nil
		}
		return order[i].Ready(ctx)
	}
	return inorder.WhenReady(ctx, len(order), workers, ready, extract)
}

// pathTwice reports whether two skills of layers have one path.
func pathTwice(todo []*staged) bool {
	seen := make(map[string]struct{}, len(todo))
	for _, sk := range todo {
		if sk.skill.Layer == nil {
			continue
		}
		if _, ok := seen[sk.skill.Path]; ok {
			return true
		}
		seen[sk.skill.Path] = struct{}{}
	}
	return false
}

// statKey is what a re-install compares before reading a file: its size
// and modification time as written.
func statKey(info fs.FileInfo) string {
	return strconv.FormatInt(info.Size(), 10) + " " + strconv.FormatInt(info.ModTime().UnixNano(), 10)
}

// hasStatKey reports whether info's statKey is want, without making it:
// a re-install compares every installed file's.
func hasStatKey(info fs.FileInfo, want string) bool {
	var buf [48]byte
	b := strconv.AppendInt(buf[:0], info.Size(), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, info.ModTime().UnixNano(), 10)
	return string(b) == want
}

// varsKey identifies the values substituted into a skill's SKILL.md: a
// skill installed with other values must be written again.
func varsKey(vars substitute.Options) string {
	return digest.FromString(vars.SkillDir + "\x00" + vars.Workspace).String()
}

// placelessKey is the record's Vars of a skill whose SKILL.md uses no
// path variable: it holds for any paths, so a moved folder neither
// writes nor reports it again.
var placelessKey = varsKey(substitute.Options{})

// varsHold reports whether a skill recorded with the Vars recorded holds
// the paths vars wants.
func varsHold(recorded string, vars substitute.Options) bool {
	return recorded == placelessKey || recorded == varsKey(vars)
}

// HoldsPaths reports whether the skill name of the folder dir, recorded
// as s, holds the paths an install of p substitutes into its SKILL.md:
// one that does not (written for another place, or by a stax that did
// not record them) the install writes again, and a dry run plans so.
func (p *Placement) HoldsPaths(dir, name string, s InstalledSkill) bool {
	return varsHold(s.Vars, pathVars(dir, name, p.Root, p.Workspace, p.Portable()))
}
