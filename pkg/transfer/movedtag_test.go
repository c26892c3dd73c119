package transfer_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/pack"
	"github.com/stax-dev/stax/pkg/staxyaml"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/transfer"
)

// packAnother builds into the fixture's layout, tagged "other", a
// package other than f.pkg.
func (f *fixture) packAnother(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	root := t.TempDir()
	skill := filepath.Join(root, "greet", "SKILL.md")
	os.MkdirAll(filepath.Dir(skill), 0o755)
	if err := os.WriteFile(skill, []byte("---\nname: greet\ndescription: Greets. Use when testing transfers.\n---\nHello again.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := staxyaml.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	s, err := store.OpenLayout(ctx, f.layout)
	if err != nil {
		t.Fatal(err)
	}
	res, err := pack.Build(ctx, s, pack.Options{Project: p})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Tag(ctx, res.Descriptor, "other"); err != nil {
		t.Fatal(err)
	}
}

// A copy to a tag that names another package says which (Replaced);
// with NoOverwrite it is refused as a registry failure before anything
// is written, and the tag stays. Registries and layouts alike.
func TestCopyOverATagThatNamesAnotherPackage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	f.packAnother(t)
	good, other := f.open(t, "oci:"+f.layout+":good"), f.open(t, "oci:"+f.layout+":other")
	otherDesc, err := other.Lookup(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, dst := range []string{f.reg.Host + "/moved/tag:1.0.0", "oci:" + filepath.Join(t.TempDir(), "out") + ":1.0.0"} {
		res, err := transfer.Copy(ctx, good, f.open(t, dst), transfer.Options{})
		if err != nil || res.Replaced != "" {
			t.Fatalf("%s: first copy replaced %q, %v", dst, res.Replaced, err)
		}

		f.reg.ResetRequests()
		_, err = transfer.Copy(ctx, other, f.open(t, dst), transfer.Options{NoOverwrite: true})
		var exists *transfer.TagExistsError
		if !errors.As(err, &exists) || exists.Current != f.pkg.Digest || exists.Refused != otherDesc.Digest || errdefs.Of(err) != errdefs.Unavailable {
			t.Fatalf("%s: NoOverwrite: %v (%s)", dst, err, errdefs.Of(err))
		}
		for _, q := range f.reg.Requests() {
			if q.Method != http.MethodGet && q.Method != http.MethodHead {
				t.Errorf("%s: the refused copy wrote: %s %s", dst, q.Method, q.Path)
			}
		}
		if d, err := f.open(t, dst).Lookup(ctx); err != nil || d.Digest != f.pkg.Digest {
			t.Errorf("%s: after the refusal the tag names %s, %v", dst, d.Digest, err)
		}

		res, err = transfer.Copy(ctx, other, f.open(t, dst), transfer.Options{})
		if err != nil || res.Replaced != f.pkg.Digest {
			t.Fatalf("%s: copy over the tag replaced %q, %v; want %s", dst, res.Replaced, err, f.pkg.Digest)
		}
		res, err = transfer.Copy(ctx, other, f.open(t, dst), transfer.Options{NoOverwrite: true})
		if err != nil || res.Replaced != "" {
			t.Errorf("%s: a copy of what the tag names: replaced %q, %v", dst, res.Replaced, err)
		}
	}
}

// What the caller saw of the tag is taken as it is: no lookup is made.
func TestCopyTakesTheTagTheCallerSaw(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	f.packAnother(t)
	dst := f.reg.Host + "/seen/tag:1.0.0"
	if _, err := transfer.Copy(ctx, f.open(t, "oci:"+f.layout+":other"), f.open(t, dst), transfer.Options{}); err != nil {
		t.Fatal(err)
	}
	other, err := f.open(t, dst).Lookup(ctx)
	if err != nil {
		t.Fatal(err)
	}
	f.reg.ResetRequests()
	res, err := transfer.Copy(ctx, f.open(t, "oci:"+f.layout+":good"), f.open(t, dst), transfer.Options{Tagged: other.Digest})
	if err != nil || res.Replaced != other.Digest {
		t.Fatalf("replaced %q, %v; want %s", res.Replaced, err, other.Digest)
	}
	for _, q := range f.reg.Requests() {
		if q.Method == http.MethodHead && filepath.Base(q.Path) == "1.0.0" {
			t.Errorf("the copy looked the tag up again: %s %s", q.Method, q.Path)
		}
	}
}
