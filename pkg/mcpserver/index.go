package mcpserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"runtime"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/internal/inorder"
	"github.com/stax-dev/stax/internal/regularfile"
	"github.com/stax-dev/stax/pkg/discover"
	"github.com/stax-dev/stax/pkg/skill"
)

// The limits of the skills extension: hosts must accept a skill of up to
// maxManifestFiles files and maxManifestBytes bytes and may refuse a
// larger one, which is served with a warning naming it.
const (
	maxManifestFiles = 512
	maxManifestBytes = 16 << 20
)

// maxIndexedSkills bounds the skills the extension serves, and with them
// the index's memory: it holds each file's path, stat and digest, never
// its bytes.
const maxIndexedSkills = 5000

// ProvenanceMetaKey is the _meta key of a skills/list or skills/get entry
// that says which package stax installed the skill from and whether its
// files still are the package's.
const ProvenanceMetaKey = "dev.stax/provenance"

// Installed is what the record of a skill's folder says stax installed:
// the package the skill came from and each file as written. The manifest
// takes its digests from it rather than reading every file at start.
type Installed struct {
	Package string
	Version string
	// Digest is the package's manifest digest.
	Digest string
	// Signer is the key or identity whose trusted signature verified the
	// package at install; empty when none did.
	Signer string
	// Require is set when the trust policy requires the package to
	// verify: a skill whose files drifted from it is then refused, not
	// served with a note.
	Require bool
	// Files are the files as installed, by slash path in the skill.
	Files map[string]RecordedFile
	// Written says that Files are every file of the skill's directory,
	// which this process has just written (stax mcp --package extracting
	// a package): the first Refresh that indexes the skill lists its
	// files from Files rather than reading the directory again, unless
	// Require is set.
	Written bool
}

// RecordedFile is one file of a skill as stax installed it.
type RecordedFile struct {
	Digest digest.Digest
	// Size and ModTime (Unix nanoseconds) are its stat as written; Size
	// is -1 when the record holds no stat.
	Size, ModTime int64
}

// provenance is the ProvenanceMetaKey value of an entry.
type provenance struct {
	Package string `json:"package"`
	Version string `json:"version,omitempty"`
	Digest  string `json:"digest"`
	Signer  string `json:"signer,omitempty"`
	// Drift names the files that differ from the package's, as stax
	// verify --installed does; absent when none do.
	Drift *drift `json:"drift,omitempty"`
}

type drift struct {
	Added   []string `json:"added"`
	Removed []string `json:"removed"`
	Changed []string `json:"changed"`
}

// indexedFile is one file of a manifest: its stat when it was digested,
// so that a read finds a change without hashing an unchanged file.
type indexedFile struct {
	rel           string
	size, modTime int64
	sum           [sha256.Size]byte
}

// indexedSkill is one skill of the extension. It is never changed once
// built: a file found changed makes a new one (see Server.refreshFile).
type indexedSkill struct {
	key, dir  string
	files     []indexedFile // by rel
	installed *Installed
	prov      *provenance // nil for a skill stax did not install
	// refused says why the skill is not served; empty when it is.
	refused string
	// encoded is the JSON of its entry, frontmatter included, made once
	// (see settle).
	encoded json.RawMessage
}

// skillIndex is what skills/list, skills/get, resources/directory/read
// and resource reads answer from, built by Refresh from the same listing
// as the tools' menu.
type skillIndex struct {
	// generation changes whenever the set of skills does: a page cursor
	// is valid for its generation only.
	generation uint64
	skills     []*indexedSkill // by key
	byKey      map[string]*indexedSkill
}

func (x *skillIndex) find(key string) *indexedSkill {
	if x == nil {
		return nil
	}
	return x.byKey[key]
}

// of returns what x indexes of the skill key in directory dir, or nil:
// a skill of the same key in another folder, one that shadowed or was
// shadowed by it, is another skill.
func (x *skillIndex) of(key, dir string) *indexedSkill {
	if is := x.find(key); is != nil && is.dir == dir {
		return is
	}
	return nil
}

// buildIndex indexes the visible skills of l whose files are files; a
// skill listFiles took as written, in taken by directory, takes the
// entry IndexWritten made of it.
// A file's digest is taken, in order, from prev when its stat is the
// same, from the install record when its stat is as written, and else
// from its bytes.
func buildIndex(l *discover.Listing, files map[string]skillFile, unserved map[string]bool,
	installed map[string]*Installed, taken map[string]*Written, prev *skillIndex) (*skillIndex, []string) {
	byKey := map[string][]skillFile{}
	for _, f := range files {
		if w := taken[f.dir]; w == nil || !w.indexed {
			byKey[f.key] = append(byKey[f.key], f)
		}
	}
	visible := make([]discover.Skill, 0, len(l.Skills))
	for _, sk := range l.Skills {
		if sk.Visible() {
			visible = append(visible, sk)
		}
	}
	x := &skillIndex{skills: make([]*indexedSkill, 0, min(len(visible), maxIndexedSkills)), byKey: make(map[string]*indexedSkill, min(len(visible), maxIndexedSkills))}
	var warnings []string
	// As many skills are indexed at once as there are processors, as
	// many at a time as the index has room for: a skill that is not
	// served leaves its room to the next.
	for len(visible) > 0 {
		room := maxIndexedSkills - len(x.skills)
		if room == 0 {
			warnings = append(warnings, fmt.Sprintf("more than %d skills are installed: skills/list and skills/get serve the first %d, up to %s; the Skill tool still loads every one",
				maxIndexedSkills, maxIndexedSkills, visible[0].Key))
			break
		}
		batch := visible[:min(room, len(visible))]
		visible = visible[len(batch):]
		indexed := make([]*indexedSkill, len(batch))
		warned := make([][]string, len(batch))
		// A skill indexed as it was written is taken here: handing a
		// thousand of them to goroutines costs more than taking them.
		var unindexed []int
		for i, sk := range batch {
			if w := taken[sk.Dir]; w != nil && w.indexed {
				indexed[i], warned[i] = w.entry, w.warnings
			} else {
				unindexed = append(unindexed, i)
			}
		}
		_ = inorder.Concurrently(context.Background(), len(unindexed), runtime.GOMAXPROCS(0), func(_ context.Context, j int) error {
			i := unindexed[j]
			indexed[i], warned[i] = indexVisible(batch[i], byKey[batch[i].Key], unserved, installed, prev)
			return nil
		})
		for i, is := range indexed {
			warnings = append(warnings, warned[i]...)
			if is != nil {
				x.skills = append(x.skills, is)
				x.byKey[is.key] = is
			}
		}
	}
	slices.SortFunc(x.skills, func(a, b *indexedSkill) int { return strings.Compare(a.key, b.key) })
	return x, warnings
}

// indexVisible is the entry of visible skill sk, whose files are files;
// nil when it is not served.
func indexVisible(sk discover.Skill, files []skillFile, unserved map[string]bool,
	installed map[string]*Installed, prev *skillIndex) (is *indexedSkill, warnings []string) {
	fm, err := sk.Fields()
	switch {
	case unserved[sk.Key]:
		// listFiles warned: a manifest must name every file, and every
		// file the Skill tool loads
	case err != nil || fm == nil:
		warnings = []string{fmt.Sprintf("skill %s is not served to skills/list: its frontmatter cannot be read as JSON: %v", sk.Key, err)}
	default:
		is, warnings = indexSkill(sk, fm, files, installed[sk.Dir], prev.find(sk.Key))
	}
	if is == nil {
		is = unchecked(sk, installed[sk.Dir])
	}
	return is, warnings
}

// unchecked is the entry of a skill the extension cannot serve, whose
// files are therefore not checked against the package stax installed it
// from: when the trust policy requires that package to verify, the skill
// is refused, by the Skill tool and resource reads too, as a drifted one
// is; nil otherwise.
func unchecked(sk discover.Skill, rec *Installed) *indexedSkill {
	if rec == nil || !rec.Require {
		return nil
	}
	return &indexedSkill{key: sk.Key, dir: sk.Dir, installed: rec,
		refused: fmt.Sprintf("refusing skill %s: stax cannot check its files against %s (see the warnings at start), and the trust policy requires %s to verify; reinstall it, or run stax verify --installed",
			sk.Key, rec.Package, rec.Package)}
}

// indexSkill digests the files of one skill and says, for a skill stax
// installed, where it came from and how it drifted since.
func indexSkill(sk discover.Skill, fm map[string]any, files []skillFile, rec *Installed, prev *indexedSkill) (*indexedSkill, []string) {
	slices.SortFunc(files, func(a, b skillFile) int { return strings.Compare(a.rel, b.rel) })
	is := &indexedSkill{key: sk.Key, dir: sk.Dir, installed: rec}
	var warnings []string
	var total int64
	for _, f := range files {
		if f.resource.Size > maxResource {
			// Never read: the manifest could not be served whole.
			return nil, []string{fmt.Sprintf("skill %s is not served to %s: its file %s is larger than the %d MiB a resource read serves",
				sk.Key, MethodSkillsList, f.rel, maxResource>>20)}
		}
		sum, err := fileSum(sk.Dir, f, rec, prev)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("skill %s: cannot read %s, so it is not in the skill's manifest: %v", sk.Key, f.rel, err))
			continue
		}
		is.files = append(is.files, indexedFile{rel: f.rel, size: f.resource.Size, modTime: f.modTime, sum: sum})
		total += f.resource.Size
	}
	if _, ok := is.file(skill.FileName); !ok { // removed since discovered
		return nil, append(warnings, fmt.Sprintf("skill %s is not served to %s: its %s is not a file inside its folder",
			sk.Key, MethodSkillsList, skill.FileName))
	}
	if len(is.files) > maxManifestFiles || total > maxManifestBytes {
		warnings = append(warnings, fmt.Sprintf("skill %s has %d files and %d bytes, over the %d files and %d MiB every host must accept: hosts may refuse it",
			sk.Key, len(is.files), total, maxManifestFiles, maxManifestBytes>>20))
	}
	if err := is.settle(fm); err != nil {
		return nil, append(warnings, fmt.Sprintf("skill %s is not served to %s: its frontmatter cannot be written as JSON: %v", sk.Key, MethodSkillsList, err))
	}
	return is, warnings
}

// fileSum is the SHA-256 of file f of the skill in dir.
func fileSum(dir string, f skillFile, rec *Installed, prev *indexedSkill) ([sha256.Size]byte, error) {
	if prev != nil && prev.dir == dir {
		if i, ok := prev.file(f.rel); ok && i.size == f.resource.Size && i.modTime == f.modTime {
			return i.sum, nil
		}
	}
	if rec != nil {
		if r, ok := rec.Files[f.rel]; ok && r.Size == f.resource.Size && r.ModTime == f.modTime && r.Digest.Algorithm() == digest.SHA256 {
			var sum [sha256.Size]byte
			if b, err := hex.DecodeString(r.Digest.Encoded()); err == nil && len(b) == len(sum) {
				copy(sum[:], b)
				return sum, nil
			}
		}
	}
	return hashFile(dir, f.rel)
}

// hashFile hashes file rel of the skill in dir, through os.Root.
func hashFile(dir, rel string) ([sha256.Size]byte, error) {
	var sum [sha256.Size]byte
	root, err := os.OpenRoot(dir)
	if err != nil {
		return sum, err
	}
	defer root.Close()
	file, err := regularfile.OpenIn(root, rel)
	if err != nil {
		return sum, err
	}
	defer file.Close()
	h := sha256.New()
	if _, err := io.Copy(h, file); err != nil {
		return sum, err
	}
	h.Sum(sum[:0])
	return sum, nil
}

func (is *indexedSkill) file(rel string) (indexedFile, bool) {
	i, ok := slices.BinarySearchFunc(is.files, rel, func(f indexedFile, rel string) int { return strings.Compare(f.rel, rel) })
	if !ok {
		return indexedFile{}, false
	}
	return is.files[i], true
}

// judge sets the provenance of a skill stax installed from its record:
// the files that differ from those installed are its drift, and a trust
// policy that requires the package to verify refuses a drifted skill, as
// render and show refuse one.
func (is *indexedSkill) judge() {
	rec := is.installed
	if rec == nil {
		return
	}
	is.prov = &provenance{Package: rec.Package, Version: rec.Version, Digest: rec.Digest, Signer: rec.Signer}
	d := drift{Added: []string{}, Removed: []string{}, Changed: []string{}}
	recorded := 0 // of is.files
	for _, f := range is.files {
		r, ok := rec.Files[f.rel]
		switch {
		case !ok:
			d.Added = append(d.Added, f.rel)
		case !sameSum(r.Digest, f.sum):
			recorded++
			d.Changed = append(d.Changed, f.rel)
		default:
			recorded++
		}
	}
	if recorded < len(rec.Files) {
		for _, rel := range slices.Sorted(maps.Keys(rec.Files)) {
			if _, ok := is.file(rel); !ok && !hidden(rel) {
				d.Removed = append(d.Removed, rel)
			}
		}
	}
	if len(d.Added)+len(d.Removed)+len(d.Changed) == 0 {
		return
	}
	is.prov.Drift = &d
	if rec.Require {
		is.refused = fmt.Sprintf("refusing skill %s: its files differ from what %s installed (%s), and the trust policy requires %s to verify; reinstall it, or run stax verify --installed",
			is.key, rec.Package, strings.Join(slices.Concat(d.Changed, d.Added, d.Removed), ", "), rec.Package)
	}
}

// sameSum reports whether d is the SHA-256 sum, without making a string
// of the sum: a thousand skills' files are compared at start.
func sameSum(d digest.Digest, sum [sha256.Size]byte) bool {
	var got [sha256.Size]byte
	enc := d.Encoded()
	if d.Algorithm() != digest.SHA256 || hex.DecodedLen(len(enc)) != len(got) {
		return false
	}
	_, err := hex.Decode(got[:], []byte(enc))
	return err == nil && got == sum
}

// hidden reports whether a path has a segment listFiles does not serve.
func hidden(rel string) bool {
	for seg := range strings.SplitSeq(rel, "/") {
		if strings.HasPrefix(seg, ".") {
			return true
		}
	}
	return false
}

// settle judges the skill and encodes its entry, with frontmatter fm,
// once: a skills/list page then copies the JSON of its entries rather
// than encoding each frontmatter and every digest again for every
// request. The frontmatter is kept only as JSON, smaller than its map.
func (is *indexedSkill) settle(fm map[string]any) (err error) {
	is.judge()
	// Not json.Marshal, which would compact what MarshalJSON returns.
	is.encoded, err = is.entry(fm).MarshalJSON()
	return err
}

// served is the entry of is as skills/list and skills/get send it.
func (is *indexedSkill) served() SkillEntry {
	return SkillEntry{encoded: is.encoded}
}

// frontmatter is the frontmatter of the entry of is, its numbers kept as
// they were written.
func (is *indexedSkill) frontmatter() (map[string]any, error) {
	var e SkillEntry
	d := json.NewDecoder(bytes.NewReader(is.encoded))
	d.UseNumber()
	err := d.Decode(&e)
	return e.Frontmatter, err
}

// entry is the skills/list and skills/get entry of is, with frontmatter
// fm.
func (is *indexedSkill) entry(fm map[string]any) SkillEntry {
	e := SkillEntry{URI: URI(is.key, skill.FileName), Frontmatter: fm, Resources: make([]SkillResource, len(is.files))}
	for i, f := range is.files {
		e.Resources[i] = SkillResource{URI: URI(is.key, f.rel), Digest: "sha256:" + hex.EncodeToString(f.sum[:]), Size: f.size}
	}
	if is.prov != nil {
		e.Meta = mcp.Meta{ProvenanceMetaKey: is.prov}
	}
	return e
}

// withFile is is with file rel as now found on disk, f, or without it
// when f is nil: the entry a host gets next describes the bytes it reads.
func (is *indexedSkill) withFile(rel string, f *indexedFile) (*indexedSkill, error) {
	fm, err := is.frontmatter()
	if err != nil {
		return nil, err
	}
	n := *is
	n.files = slices.Clone(is.files)
	if i, ok := slices.BinarySearchFunc(n.files, rel, func(g indexedFile, rel string) int { return strings.Compare(g.rel, rel) }); ok {
		if f != nil {
			n.files[i] = *f
		} else {
			n.files = slices.Delete(n.files, i, i+1)
		}
	}
	n.prov, n.refused = nil, ""
	if err := n.settle(fm); err != nil {
		return nil, err
	}
	return &n, nil
}

// nextGeneration is the generation of x, built after prev: the same when
// it serves the same skills in the same order, so that a client paging
// through skills/list is not sent back to the start by a file edit.
func nextGeneration(prev, x *skillIndex) uint64 {
	if prev == nil {
		return 1
	}
	if slices.EqualFunc(prev.skills, x.skills, func(a, b *indexedSkill) bool { return a.key == b.key && a.refused == b.refused }) {
		return prev.generation
	}
	return prev.generation + 1
}

// checkServed holds the bytes of file f about to be served, and their
// stat, to the manifest: a host verifies them against it. A file whose
// stat is as indexed is served as it is; one changed since is hashed, and
// when its bytes differ the skill's entry is refreshed and the read
// refused, so that the host asks for the new entry rather than failing
// its verification or, worse, passing it with a stale one.
func (s *Server) checkServed(f skillFile, info fs.FileInfo, data []byte) error {
	is := s.index().of(f.key, f.dir)
	if is == nil {
		return nil // a resource the extension does not serve (see buildIndex)
	}
	if is.refused != "" {
		return invalidParams("%s", is.refused)
	}
	if !s.reconcile(is, f.rel, info, data) {
		return nil
	}
	return invalidParams("%s changed on disk after skill %s was listed: call %s for its new entry, then read it again", URI(f.key, f.rel), f.key, MethodSkillsGet)
}

// reconcile holds file rel of is, read as data with stat info, to its
// entry, and refreshes the entry when they differ. It reports whether
// the bytes did, so that the entry served before does not describe them.
// A file the entry does not name is not reconciled: it is not served.
func (s *Server) reconcile(is *indexedSkill, rel string, info fs.FileInfo, data []byte) (changed bool) {
	want, ok := is.file(rel)
	if !ok {
		return false
	}
	got := indexedFile{rel: rel, size: int64(len(data)), modTime: info.ModTime().UnixNano()}
	if got.size == want.size && got.modTime == want.modTime && info.Size() == got.size {
		return false
	}
	got.sum = sha256.Sum256(data)
	changed = got.sum != want.sum
	if changed && rel == skill.FileName {
		s.reread(is, rel) // its frontmatter, the entry's and the menu's, changed too
	} else {
		s.refreshFile(is, rel, &got, changed)
	}
	return changed
}

// checkRemoved is the answer to a read of file f of a skill, found gone
// (or no longer a file, as gone says): a file its entry names is taken
// out of the entry, as a changed one is refreshed, and the read refused.
func (s *Server) checkRemoved(f skillFile, gone string) error {
	is := s.index().of(f.key, f.dir)
	if is == nil {
		return mcp.ResourceNotFoundError(f.resource.URI)
	}
	if is.refused != "" {
		return invalidParams("%s", is.refused)
	}
	if _, ok := is.file(f.rel); !ok {
		return mcp.ResourceNotFoundError(f.resource.URI)
	}
	s.removeFile(is, f.rel)
	return invalidParams("%s %s after skill %s was listed: call %s for its new entry", URI(f.key, f.rel), gone, f.key, MethodSkillsGet)
}

// removeFile takes file rel of is, found gone, out of the index. Without
// its SKILL.md, or its folder (a file in its place is none), a skill is
// no longer served. The folder is followed: a link to it, as installers
// make, outlives what it names.
func (s *Server) removeFile(is *indexedSkill, rel string) {
	if info, err := os.Stat(is.dir); rel == skill.FileName || errors.Is(err, fs.ErrNotExist) || (err == nil && !info.IsDir()) {
		s.reread(is, rel)
		return
	}
	s.refreshFile(is, rel, nil, true)
}

// reread reads the folders again, as a watch has them read, for a change
// to file rel of is found as it was served that an entry alone cannot
// take in; unless a refresh took it in since: every request that looked
// the skill up before then finds the same change, and thousands of them
// must not read the folders thousands of times.
func (s *Server) reread(is *indexedSkill, rel string) {
	s.refreshing.Lock()
	defer s.refreshing.Unlock()
	if s.index().holding(is, rel) == nil {
		return
	}
	if err := s.refresh(); err != nil {
		s.opts.Logger.Warn("reading the skill folders: " + err.Error())
	}
}

// holding is the entry x has for the skill of is when its file rel is
// still as is describes it, so that a change to rel found by a request
// that looked is up earlier is still to be taken in; nil when a refresh
// since took it in, or the skill is no longer served from that folder.
// Another file refreshed meanwhile does not make is stale for rel.
func (x *skillIndex) holding(is *indexedSkill, rel string) *indexedSkill {
	cur := x.of(is.key, is.dir)
	if cur == nil {
		return nil
	}
	want, listed := is.file(rel)
	if got, ok := cur.file(rel); ok != listed || got != want {
		return nil
	}
	return cur
}

// refreshFile puts file rel, as f or gone when f is nil, into the index
// in place of its entry in is, unless a refresh took in a change to it
// meanwhile (see skillIndex.holding).
// When announce is set, the manifest changed: the resource is replaced
// or removed, and the SDK sends clients resources/list_changed, as it
// does for a Refresh that finds the file so.
func (s *Server) refreshFile(is *indexedSkill, rel string, f *indexedFile, announce bool) {
	// Serialized with Refresh, so that the SDK's resources end as
	// s.resources says whichever of the two ran last.
	s.refreshing.Lock()
	defer s.refreshing.Unlock()
	s.mu.Lock()
	x := s.skills
	if is = x.holding(is, rel); is == nil {
		s.mu.Unlock()
		return
	}
	n, err := is.withFile(rel, f)
	if err != nil {
		s.mu.Unlock()
		return // the entry stays as it was; the read is refused
	}
	nx := &skillIndex{generation: x.generation, skills: slices.Clone(x.skills), byKey: maps.Clone(x.byKey)}
	nx.byKey[is.key] = n
	i, _ := slices.BinarySearchFunc(nx.skills, is.key, func(a *indexedSkill, key string) int { return strings.Compare(a.key, key) })
	nx.skills[i] = n
	s.skills = nx
	// s.resources is shared with readers that took it: replaced, never
	// changed in place.
	uri := URI(is.key, rel)
	sf, listed := s.resources[uri]
	resources := maps.Clone(s.resources)
	if f == nil {
		delete(resources, uri)
	} else if listed {
		r := *sf.resource
		r.Size, sf.resource, sf.modTime = f.size, &r, f.modTime
		resources[uri] = sf
	}
	s.resources = resources
	s.mu.Unlock()
	switch {
	case !announce || !listed:
	case f == nil:
		s.mcp.RemoveResources(uri)
	default:
		s.mcp.AddResource(sf.resource, s.readResource)
	}
}
