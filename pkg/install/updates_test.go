package install

import (
	"context"
	"reflect"
	"testing"

	"github.com/opencontainers/go-digest"
)

// A skill installed again from another version of its package is an
// update from the package, version and digest the record held to the
// new ones; a skill left as it was is none, and the record keeps the
// version for the next install.
func TestUpdatesNameThePackageBeforeAndAfter(t *testing.T) {
	t.Parallel()
	dir, locks := t.TempDir(), t.TempDir()
	from := PackageVersion{Package: "example.com/acme/skills:stable", Version: "1.0.0", Digest: digest.FromString("1.0.0")}
	to := PackageVersion{Package: from.Package, Version: "1.1.0", Digest: digest.FromString("1.1.0")}
	skills := func(p PackageVersion, aBody string) []Skill {
		a, b := testSkill(t, "a", aBody), testSkill(t, "b", "b\n")
		a.Digest = digest.FromString(aBody)
		for _, s := range []*Skill{&a, &b} {
			s.Package, s.PackageVersion, s.PackageDigest = p.Package, p.Version, p.Digest
		}
		return []Skill{a, b}
	}
	if _, err := Install(context.Background(), skills(from, "a\n"), Options{Dir: dir, LockDir: locks}); err != nil {
		t.Fatal(err)
	}
	rec, err := ReadRecordIn(dir, "")
	if err != nil || rec.Skills["a"].PackageVersion != "1.0.0" {
		t.Fatalf("record %+v, %v: want version 1.0.0 recorded", rec, err)
	}
	res, err := Install(context.Background(), skills(to, "a changed\n"), Options{Dir: dir, LockDir: locks})
	if err != nil {
		t.Fatal(err)
	}
	if want := []Update{{Skill: "a", From: from, To: to}}; !reflect.DeepEqual(res.Updates, want) {
		t.Errorf("updates %+v, want %+v", res.Updates, want)
	}
	// b, unchanged and not written again, now comes from the new version.
	rec, err = ReadRecordIn(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b"} {
		s := rec.Skills[name]
		if got := (PackageVersion{Package: s.Package, Version: s.PackageVersion, Digest: s.PackageDigest}); got != to {
			t.Errorf("record of %s: %+v, want %+v", name, got, to)
		}
	}
}
