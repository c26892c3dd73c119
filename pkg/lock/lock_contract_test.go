package lock_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/internal/packagetest"
	"github.com/stax-dev/stax/pkg/cache"
	"github.com/stax-dev/stax/pkg/lock"
	"github.com/stax-dev/stax/pkg/merge"
	"github.com/stax-dev/stax/pkg/resolve"
	"github.com/stax-dev/stax/pkg/target"
)

// writePackage lays out a package directory holding the named skills.
func writePackage(t *testing.T, dir, name string, skills ...string) {
	t.Helper()
	filetest.WriteFile(t, filepath.Join(dir, "stax.yaml"), "name: "+name+"\nversion: 1.0.0\n")
	for _, s := range skills {
		filetest.WriteFile(t, filepath.Join(dir, "skills", s, "SKILL.md"),
			"---\nname: "+s+"\ndescription: The "+s+" skill of "+name+". Use when testing the lock.\n---\nFrom "+name+".\n")
	}
}

// install resolves and merges sources (package directories under root)
// as install does, and returns what the lock records of it.
func install(t *testing.T, root string, sources ...string) (*lock.Lock, *resolve.Graph) {
	t.Helper()
	decls := packagetest.Declared(t, sources...)
	g, err := resolve.Resolve(context.Background(), decls, root, resolve.Options{Source: cache.New(&target.Opener{StoreDir: t.TempDir()}, nil)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return lock.New(decls, g, merge.Merge(g.Order)), g
}

func TestLockIsSortedAndStable(t *testing.T) {
	root := t.TempDir()
	writePackage(t, filepath.Join(root, "zeta"), "zeta", "zz", "aa", "shared")
	writePackage(t, filepath.Join(root, "alpha"), "alpha", "mm", "shared")
	l, _ := install(t, root, "./zeta", "./alpha")

	if want := []string{"./zeta", "./alpha"}; !slices.Equal(l.Sources, want) {
		t.Errorf("sources %v, want them as declared, %v", l.Sources, want)
	}
	var refs []string
	for _, p := range l.Packages {
		refs = append(refs, p.Ref)
		if !slices.IsSortedFunc(p.Skills, func(a, b lock.Skill) int { return strings.Compare(a.Path, b.Path) }) {
			t.Errorf("skills of %s not sorted by path: %v", p.Ref, p.Skills)
		}
	}
	if want := []string{"./alpha", "./zeta"}; !slices.Equal(refs, want) {
		t.Errorf("packages %v, want sorted %v", refs, want)
	}
	// The later source wins "shared": only it records the skill.
	for _, p := range l.Packages {
		has := slices.ContainsFunc(p.Skills, func(s lock.Skill) bool { return s.Path == "shared" })
		if has != (p.Ref == "./alpha") {
			t.Errorf("%s records shared: %v; only the winner ./alpha should", p.Ref, has)
		}
	}

	first, err := l.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	// A second install of the same thing writes the same bytes.
	again, _ := install(t, root, "./zeta", "./alpha")
	second, err := again.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if string(first) != string(second) {
		t.Errorf("two installs of the same sources marshal differently:\n%s\n---\n%s", first, second)
	}
	if m := regexp.MustCompile(`\d{4}-\d{2}-\d{2}|\d{2}:\d{2}:\d{2}`).Find(first); m != nil {
		t.Errorf("lock carries a timestamp %q:\n%s", m, first)
	}
}

func TestWriteOnlyWhenChanged(t *testing.T) {
	root := t.TempDir()
	writePackage(t, filepath.Join(root, "a"), "a", "one")
	writePackage(t, filepath.Join(root, "b"), "b", "two")
	l, _ := install(t, root, "./a")
	same, _ := install(t, root, "./a")
	more, _ := install(t, root, "./a", "./b")
	path := filepath.Join(t.TempDir(), lock.FileName)

	steps := []struct {
		name    string
		lock    *lock.Lock
		changed bool
	}{
		{"first write", l, true},
		{"same lock again", l, false},
		{"same content from another install", same, false},
		{"another install", more, true},
	}
	old := time.Unix(1_000_000_000, 0)
	for _, s := range steps {
		if _, err := os.Stat(path); err == nil {
			if err := os.Chtimes(path, old, old); err != nil {
				t.Fatal(err)
			}
		}
		changed, err := s.lock.Write(path)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if changed != s.changed {
			t.Errorf("%s: changed = %v, want %v", s.name, changed, s.changed)
		}
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if touched := !info.ModTime().Equal(old); touched != s.changed {
			t.Errorf("%s: file touched = %v, want %v", s.name, touched, s.changed)
		}
		back, err := lock.Read(path)
		if err != nil {
			t.Fatalf("%s: read back: %v", s.name, err)
		}
		if !slices.Equal(back.Sources, s.lock.Sources) || len(back.Packages) != len(s.lock.Packages) {
			t.Errorf("%s: read back %+v, want %+v", s.name, back, s.lock)
		}
	}
}

func TestPinsAndCheck(t *testing.T) {
	root := t.TempDir()
	writePackage(t, filepath.Join(root, "a"), "a", "one")
	writePackage(t, filepath.Join(root, "b"), "b", "two")
	l, g := install(t, root, "./a", "./b")

	pins := l.Pins()
	if len(pins) != 2 {
		t.Fatalf("pins %v, want both packages", pins)
	}
	for _, n := range g.Order {
		if pins[lock.Key(n)] != n.Digest {
			t.Errorf("pin of %s = %s, want %s", lock.Key(n), pins[lock.Key(n)], n.Digest)
		}
	}
	if d, ok := l.SkillDigest("two"); !ok || d == "" {
		t.Errorf("SkillDigest(two) = %q, %v; want the locked digest", d, ok)
	}
	if _, ok := l.SkillDigest("absent"); ok {
		t.Error("SkillDigest(absent) found a digest")
	}

	other := digest.FromString("other")
	tests := []struct {
		name    string
		sources []string
		edit    func(*lock.Lock)
		wantErr string // empty: no error
	}{
		{"as locked", []string{"./a", "./b"}, nil, ""},
		{"a source the lock lacks", []string{"./a", "./b", "./c"}, nil, "the install sources name ./c, which stax.lock lacks"},
		{"sources reordered", []string{"./b", "./a"}, nil, "differ from those of stax.lock"},
		{"a source dropped", []string{"./a"}, nil, "differ from those of stax.lock"},
		{"digest moved", []string{"./a", "./b"}, func(l *lock.Lock) { l.Packages[0].Digest = other }, "is locked at " + other.String() + " but resolves to"},
		{"package missing", []string{"./a", "./b"}, func(l *lock.Lock) { l.Packages = l.Packages[1:] }, "is not in stax.lock"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			edited := *l
			edited.Packages = slices.Clone(l.Packages)
			if tt.edit != nil {
				tt.edit(&edited)
			}
			err := edited.Check(packagetest.Declared(t, tt.sources...), g)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Check: %v, want nil", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("Check: %v, want an error containing %q", err, tt.wantErr)
			case err != nil && !strings.Contains(err.Error(), "run stax install"):
				t.Errorf("Check: %v does not say how to fix it", err)
			}
		})
	}
}

func TestVerifiedDigests(t *testing.T) {
	d1, d2 := digest.FromString("one"), digest.FromString("two")
	l := &lock.Lock{LockVersion: lock.Version, Packages: []lock.Package{{Ref: "r/a:1", Digest: d1}, {Ref: "r/b:1", Digest: d2}, {Ref: "r/c:1", Digest: d1}}}
	var none *lock.Lock
	if got := none.VerifiedDigests(); len(got) != 0 {
		t.Errorf("no lock: %v, want none", got)
	}
	l.RecordVerified(d1, "key-1")
	got := l.VerifiedDigests()
	if !got[d1] || got[d2] || len(got) != 1 {
		t.Errorf("VerifiedDigests = %v, want only %s", got, d1)
	}
	for _, p := range l.Packages {
		if (p.Verified != nil) != (p.Digest == d1) || (p.Verified != nil && p.Verified.Signer != "key-1") {
			t.Errorf("%s: verified %+v", p.Ref, p.Verified)
		}
	}
}

func TestReadRefusesWhatStaxDidNotWrite(t *testing.T) {
	d := digest.FromString("x").String()
	pkg := func(skill string) string {
		return "lockVersion: 1\nsources: [r/a:1]\npackages:\n  - ref: r/a:1\n    digest: " + d + "\n    skills:\n      - path: " + skill + "\n        digest: " + d + "\n"
	}
	tests := []struct {
		name, body, wantErr string
	}{
		{"valid", pkg("good-skill"), ""},
		{"parent path", pkg("../../etc"), "stax did not write this"},
		{"nested path", pkg("a/b"), "stax did not write this"},
		{"absolute path", pkg("/tmp/x"), "stax did not write this"},
		{"dot", pkg("."), "stax did not write this"},
		{"another version", "lockVersion: 2\nsources: []\npackages: []\n", "lockVersion 2; this stax reads 1"},
		{"unknown field", "lockVersion: 1\nsources: []\npackages: []\ncreated: now\n", "delete it and run stax install"},
		{"not YAML", "lockVersion: [\n", "delete it and run stax install"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), lock.FileName)
			filetest.WriteFile(t, path, tt.body)
			l, err := lock.Read(path)
			if tt.wantErr == "" {
				if err != nil || l == nil {
					t.Fatalf("Read: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Read: %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
	if _, err := lock.Read(filepath.Join(t.TempDir(), lock.FileName)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Read of a missing lock: %v, want fs.ErrNotExist", err)
	}
}

// CheckSkills holds an install to every skill digest of the lock: the
// lock as written passes; an edited digest, a skill it does not list,
// and a skill it lists that the install lacks are each refused, naming
// the skill.
func TestCheckSkillsHoldsEverySkillDigest(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writePackage(t, filepath.Join(root, "base"), "base", "lint", "review")
	l, g := install(t, root, "./base")
	m := merge.Merge(g.Order)
	if err := l.CheckSkills(m); err != nil {
		t.Fatalf("the lock as written: %v", err)
	}
	edit := func(change func(p *lock.Package)) *lock.Lock {
		c := *l
		c.Packages = slices.Clone(l.Packages)
		c.Packages[0].Skills = slices.Clone(l.Packages[0].Skills)
		change(&c.Packages[0])
		return &c
	}
	edited := digest.FromString("edited")
	cases := map[string]struct {
		lock *lock.Lock
		want []string
	}{
		"edited digest": {edit(func(p *lock.Package) { p.Skills[0].Digest = edited }), []string{"lint", string(edited), string(l.Packages[0].Skills[0].Digest), "without --frozen"}},
		"skill missing": {edit(func(p *lock.Package) { p.Skills = p.Skills[1:] }), []string{"lint", "not in stax.lock"}},
		"skill extra":   {edit(func(p *lock.Package) { p.Skills = append(p.Skills, lock.Skill{Path: "ghost", Digest: edited}) }), []string{"ghost", "does not hold"}},
	}
	for name, c := range cases {
		err := c.lock.CheckSkills(m)
		for _, want := range c.want {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %v; want it to say %q", name, err, want)
			}
		}
	}
}

// TestWriteRefusesWhatReadWouldNot: Read refuses a stax.lock over
// MaxFileSize, so Write refuses to write one, rather than leave a project
// every later command fails in; the file stays as it was.
func TestWriteRefusesWhatReadWouldNot(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), lock.FileName)
	filetest.WriteFile(t, path, "before\n")
	huge := &lock.Lock{LockVersion: 1, Sources: []string{strings.Repeat("a", lock.MaxFileSize)}}
	changed, err := huge.Write(path)
	if err == nil || changed || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "16.0 MiB") {
		t.Errorf("Write over the limit = %v, %v; want an error naming the file and the limit", changed, err)
	}
	if data, _ := os.ReadFile(path); string(data) != "before\n" {
		t.Errorf("the file changed: %.40q", data)
	}
}
