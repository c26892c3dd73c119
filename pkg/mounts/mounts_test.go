package mounts

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/opencontainers/go-digest"
)

func TestRecordRoundTripAndOrder(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	r, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	d := digest.FromString("layer")
	for _, repo := range []string{"a/one", "a/two", "a/three", "a/four", "a/two"} {
		r.Add("registry.example:5000", repo, d)
	}
	if err := r.Save(); err != nil {
		t.Fatal(err)
	}
	again, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	got := again.Sources("registry.example:5000", d, "a/four")
	if want := []string{"a/two", "a/three"}; !slices.Equal(got, want) {
		t.Errorf("Sources = %v, want %v (most recent first, at most %d kept, except a/four)", got, want, maxRepositories)
	}
	if got := again.Sources("other.example", d, ""); len(got) != 0 {
		t.Errorf("another registry's sources: %v", got)
	}
}

// Entries read back are hostile: names that are not a host, repository or
// digest are dropped, and a file that is not a record is an empty one.
func TestRecordDropsHostileEntries(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	d := digest.FromString("x")
	hostile := `{"version":1,"registries":{
		"reg.example":[{"digest":"` + d.String() + `","repositories":["../../etc","a?mount=x&from=y","UPPER/case","good/repo"]},
		               {"digest":"sha256:short","repositories":["good/repo"]}],
		"bad host/":[{"digest":"` + d.String() + `","repositories":["good/repo"]}]}}`
	if err := os.WriteFile(path, []byte(hostile), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Sources("reg.example", d, ""); !slices.Equal(got, []string{"good/repo"}) {
		t.Errorf("Sources = %v, want only good/repo", got)
	}
	if got := r.Sources("reg.example", "sha256:short", ""); len(got) != 0 {
		t.Errorf("an invalid digest was kept: %v", got)
	}
	if got := r.Sources("bad host/", d, ""); len(got) != 0 {
		t.Errorf("an invalid host was kept: %v", got)
	}
	for _, garbage := range []string{"{", `{"version":2,"registries":{}}`, "[]"} {
		if err := os.WriteFile(path, []byte(garbage), 0o600); err != nil {
			t.Fatal(err)
		}
		if r, err := Load(path); err != nil || len(r.registries) != 0 {
			t.Errorf("Load(%q) = %v, %v; want an empty record", garbage, r.registries, err)
		}
	}
}

// A push may be the first thing stax writes in a home that does not exist
// yet: the record is saved there all the same.
func TestRecordSavesIntoANewHome(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new-home", FileName)
	r, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	r.Add("registry.example:5000", "a/one", digest.FromString("layer"))
	if err := r.Save(); err != nil {
		t.Fatalf("save into a home not made yet: %v", err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
}
