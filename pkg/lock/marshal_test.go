package lock

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	"go.yaml.in/yaml/v3"
)

// wholeDocument is the lock encoded by yaml in one piece, the form
// Marshal must give byte for byte.
func wholeDocument(t *testing.T, l *Lock) []byte {
	t.Helper()
	var b bytes.Buffer
	b.WriteString("# stax.lock: written by stax install; commit it, do not edit it.\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(l); err != nil {
		t.Fatal(err)
	}
	enc.Close()
	return b.Bytes()
}

func TestMarshalIsTheWholeDocumentsBytes(t *testing.T) {
	awkward := []string{
		"ghcr.io/acme/skills:1.0.0", "oci:../layouts/p0:1.0.0", "./skills", "a b", "#hash", "key: value",
		"'quoted'", `"double"`, "yes", "null", "1.0", "-dash", "ünïcödé/ref:1", strings.Repeat("long/", 40) + "ref:1",
		"ghcr.io/a/b@sha256:" + strings.Repeat("a", 64), "[x]", "{y}", "*star", "&amp", "!bang", "%pct", "@at", "`tick`",
		"\nline break first", "a\n\nblank line", "\n\ntwo breaks first\n",
	}
	names := []string{"skill-1", "code-review", "a-b-c", "yes", "no", "null", "y", "n", "on", "true", "1e3", "0x1f",
		"inf", "nan", "skill", "skill_1", "Skill-One", "x-1", "a1-2b", "é-accent"}
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func() string { return awkward[rng.IntN(len(awkward))] }
	for i := range 200 {
		l := &Lock{LockVersion: Version}
		for range rng.IntN(3) {
			l.Sources = append(l.Sources, pick())
		}
		for p := range rng.IntN(4) {
			pkg := Package{Ref: pick(), Digest: digest.FromString(fmt.Sprint(i, p))}
			for s := range rng.IntN(4) {
				pkg.Skills = append(pkg.Skills, Skill{Path: names[rng.IntN(len(names))], Digest: digest.FromString(fmt.Sprint(i, p, s))})
			}
			if rng.IntN(2) == 0 {
				pkg.Verified = &Verified{Signer: pick()}
			}
			if rng.IntN(2) == 0 {
				pkg.Range, pkg.Version, pkg.Tag = pick(), "1.10.0-rc.1", pick()
			}
			l.Packages = append(l.Packages, pkg)
		}
		got, err := l.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if want := wholeDocument(t, l); !bytes.Equal(got, want) {
			t.Fatalf("lock %d:\n--- Marshal\n%s\n--- whole document\n%s", i, got, want)
		}
		var back Lock
		if err := yaml.Unmarshal(got, &back); err != nil {
			t.Fatalf("lock %d does not read back: %v", i, err)
		}
		if again, _ := back.Marshal(); !bytes.Equal(again, got) {
			t.Fatalf("lock %d changes when read back and written again", i)
		}
	}
}

// BenchmarkMarshal encodes the lock of 20 packages of 500 skills each:
// with the whole document built as one yaml tree it allocated 86 MB per
// run (8.6 KiB per skill), one package head and skill at a time 4.6 MB.
func BenchmarkMarshal(b *testing.B) {
	l := &Lock{LockVersion: Version, Sources: []string{"ghcr.io/acme/skills:1.0.0"}}
	for p := range 20 {
		pkg := Package{Ref: fmt.Sprintf("ghcr.io/acme/p%d:1.0.0", p), Digest: digest.FromString(fmt.Sprint(p))}
		for s := range 500 {
			pkg.Skills = append(pkg.Skills, Skill{Path: fmt.Sprintf("skill-%05d", p*500+s), Digest: digest.FromString(fmt.Sprint(p, s))})
		}
		l.Packages = append(l.Packages, pkg)
	}
	for b.Loop() {
		if _, err := l.Marshal(); err != nil {
			b.Fatal(err)
		}
	}
}

// A value with line breaks, which yaml writes as a block scalar, reads
// back as written: gopkg.in/yaml.v3 wrote a leading line break as
// nothing, and the lock read back with another signer.
func TestValuesWithLineBreaksReadBack(t *testing.T) {
	for _, v := range []string{"\nline break first", "two\nlines\n", "a\n\nblank line", "\n\ntwo breaks first\n"} {
		l := &Lock{LockVersion: Version, Packages: []Package{{Ref: "ghcr.io/acme/skills:1.0.0", Digest: digest.FromString(v), Verified: &Verified{Signer: v}}}}
		out, err := l.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		var back Lock
		if err := yaml.Unmarshal(out, &back); err != nil {
			t.Fatalf("signer %q: the lock does not read back: %v\n%s", v, err, out)
		}
		if got := back.Packages[0].Verified.Signer; got != v {
			t.Errorf("signer %q reads back as %q:\n%s", v, got, out)
		}
	}
}
