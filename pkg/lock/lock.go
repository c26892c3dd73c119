// Package lock reads and writes stax.lock: for every source and transitive
// package of an install, its reference, manifest digest, and the digest of
// every skill it contributed. The file is sorted and carries no
// timestamps, so two installs of the same thing write the same bytes and
// it merges cleanly in git.
package lock

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"regexp"
	"slices"
	"strings"

	"github.com/opencontainers/go-digest"
	"go.yaml.in/yaml/v3"

	"github.com/stax-dev/stax/internal/atomicfile"
	"github.com/stax-dev/stax/internal/bytesize"
	"github.com/stax-dev/stax/internal/regularfile"
	"github.com/stax-dev/stax/internal/userinfo"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/declaration"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/merge"
	"github.com/stax-dev/stax/pkg/resolve"
	"github.com/stax-dev/stax/pkg/semver"
	"github.com/stax-dev/stax/pkg/staxyaml"
	"github.com/stax-dev/stax/pkg/termtext"
	"github.com/stax-dev/stax/pkg/yamlerr"
)

// FileName is the lockfile beside stax.yaml.
const FileName = "stax.lock"

// Version is the lockfile format this code writes.
const Version = 1

// Lock is the content of stax.lock.
type Lock struct {
	LockVersion int `yaml:"lockVersion"`
	// Sources are the install sources, as declared and in order.
	Sources []string `yaml:"sources"`
	// Packages are sorted by reference.
	Packages []Package `yaml:"packages"`
	// declared are the Refs of Packages parsed, by Ref, where the lock
	// enters (see Declaration).
	declared map[string]declaration.Declaration
}

// Declaration is the locked package p of l as a declaration, its Ref
// parsed once where the lock was read or made; false for a Ref that
// does not parse (a lock written by hand), which names nothing to compare.
func (l *Lock) Declaration(p Package) (declaration.Declaration, bool) {
	if l.declared == nil {
		l.parse()
	}
	d, ok := l.declared[p.Ref]
	return d, ok
}

// PackageOf names the package p is of (see declaration.Declaration.Package);
// its Ref as written when that does not parse.
func (l *Lock) PackageOf(p Package) string {
	if d, ok := l.Declaration(p); ok {
		return d.Package()
	}
	return p.Ref
}

// parse parses the Refs of l's packages (see Declaration).
func (l *Lock) parse() {
	l.declared = map[string]declaration.Declaration{}
	for _, p := range l.Packages {
		if d, err := declaration.Parse(p.Ref, declaration.Where{File: FileName}); err == nil {
			l.declared[p.Ref] = d
		}
	}
}

// Package is one locked package.
type Package struct {
	// Ref is the reference with its tag, or a package directory as declared.
	// For a source asked for by a range, or with neither tag nor digest, it
	// is the repository, and Range, Version and Tag say what was asked and
	// what it resolved to.
	Ref string `yaml:"ref"`
	// Range is the version range the source asked for; empty for none.
	Range string `yaml:"range,omitempty"`
	// Version is the version the tag chosen for Ref reads as; empty when
	// the tag is not a version (latest).
	Version string `yaml:"version,omitempty"`
	// Tag is the tag Ref was resolved through, when Ref names none.
	Tag    string        `yaml:"tag,omitempty"`
	Digest digest.Digest `yaml:"digest"`
	// Skills are the skills the package contributed, sorted by path.
	Skills []Skill `yaml:"skills,omitempty"`
	// Verified is set when a trusted signature verified the package at
	// install; install --frozen then requires it to verify again.
	Verified *Verified `yaml:"verified,omitempty"`
	// Git is where a package built from a git source was found; nil for
	// any other.
	Git *Git `yaml:"git,omitempty"`
}

// Git records a git source: what was asked of it and the commit its tree
// was taken from, which install --frozen takes again with no ls-remote.
// It never holds credentials.
type Git struct {
	// URL is the repository's, without credentials.
	URL    string `yaml:"url"`
	Subdir string `yaml:"subdir,omitempty"`
	// Ref is the tag or branch the commit was resolved through, or the
	// commit; Kind says which (tag, branch, commit).
	Ref    string `yaml:"ref"`
	Kind   string `yaml:"kind"`
	Commit string `yaml:"commit"`
	// Plugin and Skills are what was chosen of the source.
	Plugin string   `yaml:"plugin,omitempty"`
	Skills []string `yaml:"skills,omitempty"`
	// Followed is the repository of a plugin its marketplace keeps in
	// another one, and the commit taken there.
	Followed *GitFollowed `yaml:"followed,omitempty"`
}

// GitFollowed is a followed plugin's repository and commit.
type GitFollowed struct {
	URL    string `yaml:"url"`
	Subdir string `yaml:"subdir,omitempty"`
	Ref    string `yaml:"ref,omitempty"`
	Kind   string `yaml:"kind"`
	Commit string `yaml:"commit"`
}

// Verified says by whom a package was verified: the ID of the trusted key.
type Verified struct {
	Signer string `yaml:"signer"`
}

// RecordVerified marks every package with digest d as verified by signer.
func (l *Lock) RecordVerified(d digest.Digest, signer string) {
	for i := range l.Packages {
		if l.Packages[i].Digest == d {
			l.Packages[i].Verified = &Verified{Signer: signer}
		}
	}
}

// VerifiedDigests are the packages the lock records as verified; none
// for no lock.
func (l *Lock) VerifiedDigests() map[digest.Digest]bool {
	if l == nil {
		return nil
	}
	out := map[digest.Digest]bool{}
	for _, p := range l.Packages {
		if p.Verified != nil {
			out[p.Digest] = true
		}
	}
	return out
}

// Skill is a contributed skill and its content digest.
type Skill struct {
	Path   string        `yaml:"path"`
	Digest digest.Digest `yaml:"digest"`
}

// New records an install: its sources, every package of its graph, and
// which skills each contributed to the merged set.
func New(sources []declaration.Declaration, g *resolve.Graph, m *merge.Result) *Lock {
	contributed := map[*resolve.Node][]Skill{}
	for _, s := range m.Skills {
		contributed[s.From] = append(contributed[s.From], Skill{Path: s.Path, Digest: s.Digest})
	}
	l := &Lock{LockVersion: Version, Sources: Sources(declaration.Written(sources))}
	for _, n := range g.Order {
		p := Package{Ref: Key(n), Range: n.Range, Tag: n.Tag, Digest: n.Digest, Skills: contributed[n], Git: gitOf(n.Git)}
		if v, ok := semver.ParseTag(n.Tag); ok {
			p.Version = v.String()
		}
		l.Packages = append(l.Packages, p)
	}
	slices.SortFunc(l.Packages, func(a, b Package) int { return strings.Compare(a.Ref+"@"+string(a.Digest), b.Ref+"@"+string(b.Digest)) })
	for i := range l.Packages {
		slices.SortFunc(l.Packages[i].Skills, func(a, b Skill) int { return strings.Compare(a.Path, b.Path) })
	}
	l.parse()
	return l
}

// Key is how the lock names a node: its reference with tag, or for a
// package directory the path it was declared with, which stays valid on
// another machine where the absolute path would not.
func Key(n *resolve.Node) string {
	if n.Dir != "" {
		return n.Ref
	}
	return n.Key
}

// Pins are the digests the lock fixes, by reference, for resolve.Options.
func (l *Lock) Pins() map[string]digest.Digest {
	pins := map[string]digest.Digest{}
	for _, p := range l.Packages {
		pins[p.Ref] = p.Digest
	}
	return pins
}

// CheckSources reports whether the lock was written for these sources.
func (l *Lock) CheckSources(decls []declaration.Declaration) error {
	if sources := Sources(declaration.Written(decls)); !slices.Equal(l.Sources, sources) {
		for _, s := range sources {
			if !slices.Contains(l.Sources, s) {
				return fmt.Errorf("the install sources name %s, which %s lacks: run stax install to update the lock", s, FileName)
			}
		}
		return fmt.Errorf("the install sources %v differ from those of %s %v: run stax install to update the lock", sources, FileName, l.Sources)
	}
	return nil
}

// CheckRanges reports a source whose version range is not the one the
// lock resolved it for, so that its locked digest may be out of range.
func (l *Lock) CheckRanges(sources []declaration.Declaration) error {
	asked := map[string]string{}
	for _, s := range l.Sources {
		asked[staxyaml.PackageOf(s)] = ""
	}
	for _, d := range sources {
		if d.Range != nil {
			asked[d.Package()] = d.Range.String()
		}
	}
	for _, p := range l.Packages {
		want, isSource := asked[l.PackageOf(p)]
		if isSource && want != p.Range {
			return fmt.Errorf("stax.yaml asks for %s in the range %q, but %s locked it for %q: run stax install to update the lock", p.Ref, want, FileName, p.Range)
		}
		// A lock another tool or a hand wrote may name the range and a
		// version out of it: the pair is what must agree.
		if isSource && want != "" && !inRange(want, p.Version) {
			return fmt.Errorf("%s locks %s at %s, which the range %q of stax.yaml does not allow: run stax install to update the lock", FileName, p.Ref, p.Version, want)
		}
	}
	return nil
}

// inRange reports whether version is one the range r allows; a range or
// version that does not parse allows nothing.
func inRange(r, version string) bool {
	rng, err := semver.ParseRange(r)
	if err != nil {
		return false
	}
	v, err := semver.Parse(version)
	return err == nil && rng.Allows(v)
}

// Check reports the first way an install of sources resolved to g differs
// from the lock.
func (l *Lock) Check(sources []declaration.Declaration, g *resolve.Graph) error {
	if err := l.CheckSources(sources); err != nil {
		return err
	}
	locked := map[string]digest.Digest{}
	for _, p := range l.Packages {
		locked[p.Ref] = p.Digest
	}
	for _, n := range g.Order {
		want, ok := locked[Key(n)]
		switch {
		case !ok:
			return fmt.Errorf("%s (%s) is not in %s: run stax install to update the lock", Key(n), n.Digest, FileName)
		case want != n.Digest:
			return fmt.Errorf("%s is locked at %s but resolves to %s: run stax install to update the lock", Key(n), want, n.Digest)
		}
	}
	return nil
}

// CheckSkills reports the first way the skills an install of the locked
// packages merged to, m, differ from the skills the lock pins: a skill
// the lock does not list under the package it came from, one whose digest
// is not the locked one, or one the lock lists that m lacks. The package
// digests pin the packages' configs, whose records give the skills'
// digests; the lock's own skill digests are checked here, so that an
// edited one is refused rather than installed past.
func (l *Lock) CheckSkills(m *merge.Result) error {
	locked := map[string]map[string]digest.Digest{}
	for _, p := range l.Packages {
		skills := locked[p.Ref]
		if skills == nil {
			skills = map[string]digest.Digest{}
			locked[p.Ref] = skills
		}
		for _, s := range p.Skills {
			skills[s.Path] = s.Digest
		}
	}
	for _, s := range m.Skills {
		ref := Key(s.From)
		want, ok := locked[ref][s.Path]
		switch {
		case !ok:
			return fmt.Errorf("skill %s of %s is not in %s: re-run `stax install` without --frozen to update the lock", s.Path, ref, FileName)
		case want != s.Digest:
			return fmt.Errorf("%s pins skill %s of %s at %s, but the package holds %s: re-run `stax install` without --frozen to update the lock",
				FileName, s.Path, ref, want, s.Digest)
		}
		delete(locked[ref], s.Path)
	}
	for _, p := range l.Packages {
		for _, s := range p.Skills {
			if _, left := locked[p.Ref][s.Path]; left {
				return fmt.Errorf("%s lists skill %s of %s, which the install does not hold: re-run `stax install` without --frozen to update the lock", FileName, s.Path, p.Ref)
			}
		}
	}
	return nil
}

// SkillDigest is the locked digest of the skill at path, if any.
func (l *Lock) SkillDigest(path string) (digest.Digest, bool) {
	for _, p := range l.Packages {
		for _, s := range p.Skills {
			if s.Path == path {
				return s.Digest, true
			}
		}
	}
	return "", false
}

// Unlocked names, sorted, the installed skills (directory name to
// content digest) that the lock does not pin with that content: a skill
// it does not list, or one whose files are not what it locked. A nil lock
// pins nothing and is not checked.
func (l *Lock) Unlocked(installed map[string]digest.Digest) []string {
	unlocked := []string{}
	if l == nil {
		return unlocked
	}
	for name, d := range installed {
		if want, ok := l.SkillDigest(name); !ok || want != d {
			unlocked = append(unlocked, name)
		}
	}
	slices.Sort(unlocked)
	return unlocked
}

// ReadFrozen reads the lockfile a frozen install follows and checks that
// it was written for sources: a missing lockfile, or one for other
// sources, cannot be honoured.
func ReadFrozen(path string, sources []declaration.Declaration) (*Lock, error) {
	l, err := Read(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errdefs.Resolution(fmt.Errorf("--frozen needs %s: run stax install without --frozen to write it", path))
	} else if err != nil {
		return nil, err
	}
	if err := l.CheckSources(sources); err != nil {
		return nil, errdefs.Resolution(err)
	}
	return l, nil
}

// MaxFileSize bounds a stax.lock, which Read refuses to read beyond and
// Write to write beyond: tens of thousands of packages fit.
const MaxFileSize = 16 << 20

// Read loads a lockfile; a missing one is fs.ErrNotExist.
func Read(path string) (*Lock, error) {
	data, err := regularfile.ReadFile(path, MaxFileSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if err != nil {
		return nil, errdefs.MarkLocal(err) // names the file
	}
	var l Lock
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&l); err != nil {
		return nil, errdefs.Resolution(fmt.Errorf("%s: %v (delete it and run stax install to write a new one)", path, yamlerr.Translate(err, data, &l)))
	}
	if l.LockVersion != Version {
		return nil, errdefs.Resolution(fmt.Errorf("%s has lockVersion %d; this stax reads %d", path, l.LockVersion, Version))
	}
	// Skill paths become directory names in the folders runtimes read.
	for _, p := range l.Packages {
		for _, s := range p.Skills {
			if err := layers.CheckName(s.Path); err != nil {
				return nil, errdefs.MarkLocal(fmt.Errorf("%s: package %s: %w; stax did not write this: delete the file and run stax install to write a new one", path, p.Ref, err))
			}
		}
		if p.Git == nil {
			continue
		}
		if err := p.Git.check(); err != nil {
			return nil, errdefs.MarkLocal(fmt.Errorf("%s: package %s: git: %w; stax did not write this: delete the file and run stax install to write a new one", path, termtext.Escape(userinfo.Mask(p.Ref)), err))
		}
	}
	l.parse()
	return &l, nil
}

// Marshal encodes l in its canonical form (see Encode).
func (l *Lock) Marshal() ([]byte, error) {
	var b bytes.Buffer
	if err := l.Encode(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Encode writes l in its canonical form: the bytes yaml gives for the
// whole lock, written one package head and one skill at a time and
// indented into place, so that neither a document tree of every skill
// nor the encoded lock is held at once.
func (l *Lock) Encode(w io.Writer) error {
	b := bufio.NewWriter(w)
	b.WriteString("# stax.lock: written by stax install; commit it, do not edit it.\n")
	if len(l.Packages) == 0 {
		if err := encodeYAML(b, "", l); err != nil {
			return err
		}
		return b.Flush()
	}
	head := struct {
		LockVersion int      `yaml:"lockVersion"`
		Sources     []string `yaml:"sources"`
	}{l.LockVersion, l.Sources}
	if err := encodeYAML(b, "", head); err != nil {
		return err
	}
	b.WriteString("packages:\n")
	type packageHead struct {
		Ref     string        `yaml:"ref"`
		Range   string        `yaml:"range,omitempty"`
		Version string        `yaml:"version,omitempty"`
		Tag     string        `yaml:"tag,omitempty"`
		Digest  digest.Digest `yaml:"digest"`
	}
	type verified struct {
		Verified *Verified `yaml:"verified"`
	}
	type git struct {
		Git *Git `yaml:"git"`
	}
	for _, p := range l.Packages {
		if err := encodeYAML(b, "  ", []packageHead{{p.Ref, p.Range, p.Version, p.Tag, p.Digest}}); err != nil {
			return err
		}
		if len(p.Skills) > 0 {
			b.WriteString("    skills:\n")
		}
		for _, s := range p.Skills {
			if plainName.MatchString(s.Path) && s.Digest.Validate() == nil {
				// What yaml writes for these, without an encoder per skill.
				b.WriteString("      - path: " + s.Path + "\n        digest: " + string(s.Digest) + "\n")
				continue
			}
			if err := encodeYAML(b, "      ", []Skill{s}); err != nil {
				return err
			}
		}
		if p.Verified != nil {
			if err := encodeYAML(b, "    ", verified{p.Verified}); err != nil {
				return err
			}
		}
		if p.Git != nil {
			if err := encodeYAML(b, "    ", git{p.Git}); err != nil {
				return err
			}
		}
	}
	return b.Flush()
}

// plainName matches the skill names yaml writes unquoted: with a letter
// first and a hyphen, no name is a number, a boolean or null.
var plainName = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)+$`)

// encodeYAML writes v to b as a document of its own, each line indented
// by indent.
func encodeYAML(b *bufio.Writer, indent string, v any) error {
	var doc bytes.Buffer
	enc := yaml.NewEncoder(&doc)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	for line := range bytes.Lines(doc.Bytes()) {
		// yaml leaves a block scalar's empty lines empty in the
		// whole document too.
		if line[0] != '\n' {
			b.WriteString(indent)
		}
		b.Write(line)
	}
	return nil
}

// Write saves l at path unless the file already holds these bytes, so a
// re-install leaves it untouched. The write is atomic and durable.
func (l *Lock) Write(path string) (changed bool, err error) {
	data, err := l.Marshal()
	if err != nil {
		return false, fmt.Errorf("encode %s: %w", path, err)
	}
	if len(data) > MaxFileSize {
		return false, errdefs.Invalid(fmt.Errorf("%s would hold %s, over the limit of %s that stax reads: install fewer packages in this project",
			path, bytesize.Format(int64(len(data))), bytesize.Format(MaxFileSize)))
	}
	if old, err := regularfile.ReadFile(path, MaxFileSize); err == nil && bytes.Equal(old, data) {
		return false, nil
	}
	if err := atomicfile.WriteFile(path, data, 0o644); err != nil {
		return false, errdefs.MarkLocal(err)
	}
	return true, nil
}
