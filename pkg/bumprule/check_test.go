package bumprule_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/bumprule"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/pack"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/registry"
	"github.com/stax-dev/stax/pkg/source"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/target"
	"github.com/stax-dev/stax/pkg/transfer"
	"github.com/stax-dev/stax/pkg/validate"
)

func newOpener(t *testing.T) *target.Opener {
	t.Helper()
	client, err := registry.New(registry.Options{RegistryConfig: filepath.Join(t.TempDir(), "config.json")})
	if err != nil {
		t.Fatal(err)
	}
	return &target.Opener{StoreDir: filepath.Join(t.TempDir(), "store"), Registry: client}
}

// version is a package directory at one version: a stateful skill with
// the given version and memory, and a plain skill.
type version struct {
	version, memory string
}

// write writes r as a package directory and returns its path.
func (r version) write(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	filetest.Write(t, dir, map[string]string{
		"stax.yaml":              "name: demo\nversion: " + r.version + "\n",
		"skills/greet/SKILL.md":  "---\nname: greet\ndescription: Greets. Use when testing releases.\nversion: " + r.version + "\n---\nSay hello.\n",
		"skills/greet/MEMORY.md": "---\nversion: " + r.version + "\ncontributors: 1\nlastUpdated: 2026-01-01\n---\n" + r.memory + "\n",
		"skills/plain/SKILL.md":  "---\nname: plain\ndescription: Plain. Use when testing releases.\n---\nPlain.\n",
	})
	return dir
}

// build builds dir as push does, into a temporary layout.
func build(t *testing.T, opener *target.Opener, dir string) *source.Source {
	t.Helper()
	src, err := source.Open(context.Background(), dir, source.Options{Opener: opener, Scope: source.LocalOnly})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return src
}

// publish builds r and copies it to ref.
func publish(t *testing.T, opener *target.Opener, r version, ref string) digest.Digest {
	t.Helper()
	ctx := context.Background()
	src := build(t, opener, r.write(t))
	dst, err := opener.Open(ctx, mustParse(t, ref), store.ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	res, err := transfer.Copy(ctx, src.Target, dst, transfer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res.Descriptor.Digest
}

func mustParse(t *testing.T, s string) reference.Reference {
	t.Helper()
	ref, err := reference.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return ref
}

// notBumped returns the version-not-bumped errors of err's report.
func notBumped(t *testing.T, err error) []validate.Diagnostic {
	t.Helper()
	var invalid *pack.InvalidError
	if !errors.As(err, &invalid) {
		t.Fatalf("%v: want a *pack.InvalidError", err)
	}
	var found []validate.Diagnostic
	for _, d := range invalid.Report.Errors {
		if d.Code == validate.CodeVersionNotBumped {
			found = append(found, d)
		}
	}
	return found
}

// Check compares a build with what its destination's tags say came
// before: the same tag, else the highest version below it.
func TestCheck(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	reg := registrytest.New(t)
	opener := newOpener(t)
	repo := reg.Host + "/skills/demo"
	v1 := version{"1.0.0", "Short hellos."}
	published := publish(t, opener, v1, repo+":1.0.0")

	tests := []struct {
		name    string
		build   version
		dst     string
		against string
		want    bumprule.Seen
		// bumpMsg, when set, is what the not-bumped error says.
		bumpMsg string
	}{
		{name: "nothing before", build: v1, dst: reg.Host + "/skills/new:1.0.0", want: bumprule.Seen{NewTag: true}},
		{name: "an unchanged re-push", build: v1, dst: repo + ":1.0.0", want: bumprule.Seen{Tagged: published}},
		{name: "a bump", build: version{"1.0.1", "Long hellos."}, dst: repo + ":1.0.1", want: bumprule.Seen{NewTag: true}},
		{name: "the package version names the tag", build: version{"1.0.1", "Long hellos."}, dst: repo, want: bumprule.Seen{NewTag: true}},
		{name: "a digest destination has no before", build: version{"1.0.0", "Long hellos."}, dst: repo + "@" + published.String()},
		{name: "changed memory on the same tag", build: version{"1.0.0", "Long hellos."}, dst: repo + ":1.0.0",
			want: bumprule.Seen{Tagged: published}, bumpMsg: "MEMORY.md changed since " + repo + ":1.0.0"},
		{name: "changed memory on a new tag, not bumped", build: version{"1.0.0", "Long hellos."}, dst: repo + ":2.0.0",
			want: bumprule.Seen{NewTag: true}, bumpMsg: "MEMORY.md changed since " + repo + ":1.0.0"},
		{name: "against names what to compare with", build: version{"1.0.0", "Long hellos."}, dst: reg.Host + "/skills/new:1.0.0",
			against: repo + ":1.0.0", bumpMsg: "MEMORY.md changed since " + repo + ":1.0.0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			src := build(t, opener, tt.build.write(t))
			seen, err := bumprule.Check(ctx, source.Options{Opener: opener}, tt.against, mustParse(t, tt.dst), src.Built)
			if seen != tt.want {
				t.Errorf("Seen = %+v, want %+v", seen, tt.want)
			}
			if tt.bumpMsg == "" {
				if err != nil {
					t.Fatalf("Check: %v", err)
				}
				return
			}
			if errdefs.Of(err) != errdefs.InvalidArgument {
				t.Fatalf("Check: %v (class %v), want an invalid-argument error", err, errdefs.Of(err))
			}
			found := notBumped(t, err)
			if len(found) != 1 || !strings.Contains(found[0].Message, tt.bumpMsg) || !strings.HasSuffix(found[0].File, filepath.Join("greet", "MEMORY.md")) {
				t.Errorf("not-bumped errors %+v, want one for greet/MEMORY.md saying %q", found, tt.bumpMsg)
			}
			if !strings.Contains(err.Error(), "(compared with ") || !strings.Contains(err.Error(), "stax bump") {
				t.Errorf("Check: %q does not say what it compared with and how to fix it", err)
			}
		})
	}
}

// A build without a report (a package read, not built) is not checked.
func TestCheckWithoutReport(t *testing.T) {
	t.Parallel()
	seen, err := bumprule.Check(context.Background(), source.Options{Opener: newOpener(t)}, "", mustParse(t, "example.invalid/not/reached:1"), &pack.Result{})
	if err != nil || seen != (bumprule.Seen{}) {
		t.Errorf("Check = %+v, %v; want nothing checked", seen, err)
	}
}

// What Check cannot read fails with the class of the failure: a stateful
// file gone from the directory is local; a published layer that does not
// match its digest is corrupt; an --against that is nowhere is the user's.
func TestCheckFailures(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	reg := registrytest.New(t)
	opener := newOpener(t)
	repo := reg.Host + "/skills/demo"
	publish(t, opener, version{"1.0.0", "Short hellos."}, repo+":1.0.0")
	changed := version{"1.0.0", "Long hellos."}

	dir := changed.write(t)
	src := build(t, opener, dir)
	if err := os.Remove(filepath.Join(dir, "skills", "greet", "MEMORY.md")); err != nil {
		t.Fatal(err)
	}
	_, err := bumprule.Check(ctx, source.Options{Opener: opener}, "", mustParse(t, repo+":1.0.0"), src.Built)
	if errdefs.Of(err) != errdefs.Local || !strings.Contains(err.Error(), "MEMORY.md") {
		t.Errorf("a MEMORY.md removed after the build: %v (class %v), want a local error naming it", err, errdefs.Of(err))
	}

	missing := filepath.Join(t.TempDir(), "none")
	_, err = bumprule.Check(ctx, source.Options{Opener: opener, Scope: source.RemoteOnly}, "oci:"+missing+":1.0.0", mustParse(t, repo+":2.0.0"), build(t, opener, changed.write(t)).Built)
	if errdefs.Of(err) != errdefs.Local || !strings.Contains(err.Error(), "no OCI layout at "+missing) {
		t.Errorf("against a missing layout: %v (class %v), want the file system's error naming it", err, errdefs.Of(err))
	}

	// The published skills layer is only read when a skill changed.
	pub, pkg, err := source.OpenPackage(ctx, repo+":1.0.0", source.Options{Opener: opener, Scope: source.RemoteOnly})
	if err != nil {
		t.Fatal(err)
	}
	pub.Close()
	fault := registrytest.CorruptBlob("skills/demo", pkg.Skills.Digest).Times(-1)
	reg.AddFaults(fault)
	_, err = bumprule.Check(ctx, source.Options{Opener: opener}, "", mustParse(t, repo+":1.0.0"), build(t, opener, version{"1.0.0", "Short hellos."}.write(t)).Built)
	if err != nil || fault.Hits() != 0 {
		t.Errorf("an unchanged package: %v, %d reads of the published layer; want no error and no read", err, fault.Hits())
	}
	_, err = bumprule.Check(ctx, source.Options{Opener: opener}, "", mustParse(t, repo+":1.0.0"), build(t, opener, changed.write(t)).Built)
	if errdefs.Of(err) != errdefs.DataLoss || fault.Hits() == 0 {
		t.Errorf("a corrupt published layer: %v (class %v, %d reads), want a data-loss error", err, errdefs.Of(err), fault.Hits())
	}
}

// Previous finds the package a push follows in a layout too, and nothing
// where there is no layout yet.
func TestPreviousInALayout(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	opener := newOpener(t)
	layout := filepath.Join(t.TempDir(), "layout")

	prev, newTag, err := bumprule.Previous(ctx, opener, mustParse(t, "oci:"+layout), "1.0.0")
	if err != nil || prev != nil || newTag {
		t.Errorf("no layout yet: %v, %v, %v; want nothing before", prev, newTag, err)
	}
	if _, err := os.Stat(layout); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Previous created the layout: %v", err)
	}

	publish(t, opener, version{"1.0.0", "Short hellos."}, "oci:"+layout+":1.0.0")
	publish(t, opener, version{"1.2.0", "Short hellos."}, "oci:"+layout+":1.2.0")
	for _, tt := range []struct {
		dst, version, want string
		newTag             bool
	}{
		{"oci:" + layout, "1.1.0", "1.0.0", true},
		{"oci:" + layout, "1.2.0", "1.2.0", false},
		{"oci:" + layout + ":2.0.0", "1.0.0", "1.2.0", true}, // the tag named wins over the version
	} {
		prev, newTag, err := bumprule.Previous(ctx, opener, mustParse(t, tt.dst), tt.version)
		if err != nil || prev == nil || prev.Tag != tt.want || prev.Layout != layout || newTag != tt.newTag {
			t.Errorf("Previous(%s, %s) = %v, %v, %v; want tag %s, new %v", tt.dst, tt.version, prev, newTag, err, tt.want, tt.newTag)
		}
	}
	prev, newTag, err = bumprule.Previous(ctx, opener, mustParse(t, "oci:"+layout+":0.1.0"), "0.1.0")
	if err != nil || prev != nil || !newTag {
		t.Errorf("nothing below: %v, %v, %v; want no previous and a new tag", prev, newTag, err)
	}
}

// A registry that cannot be reached fails Previous with its class.
func TestPreviousUnreachable(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	reg.Stop()
	_, _, err := bumprule.Previous(context.Background(), newOpener(t), mustParse(t, reg.Host+"/skills/demo"), "1.0.0")
	if errdefs.Of(err) != errdefs.Unavailable || !strings.Contains(err.Error(), reg.Host) {
		t.Errorf("Previous: %v (class %v), want a registry error naming %s", err, errdefs.Of(err), reg.Host)
	}
}

// Against adds to a skills directory's report what changed since a
// published package without a bump.
func TestAgainst(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	opener := newOpener(t)
	layout := filepath.Join(t.TempDir(), "layout")
	ref := "oci:" + layout + ":1.0.0"
	publish(t, opener, version{"1.0.0", "Short hellos."}, ref)

	for _, tt := range []struct {
		name   string
		dir    version
		errors int
	}{
		{"unchanged", version{"1.0.0", "Short hellos."}, 0},
		{"changed, bumped", version{"1.0.1", "Long hellos."}, 0},
		{"changed, not bumped", version{"1.0.0", "Long hellos."}, 1},
	} {
		report, err := validate.Dir(validate.Options{Root: filepath.Join(tt.dir.write(t), "skills")})
		if err != nil || !report.Valid {
			t.Fatalf("%s: validate: %v, %+v", tt.name, err, report)
		}
		if err := bumprule.Against(ctx, ref, source.Options{Opener: opener}, report); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if len(report.Errors) != tt.errors || report.Valid != (tt.errors == 0) {
			t.Errorf("%s: valid %v with errors %+v, want %d", tt.name, report.Valid, report.Errors, tt.errors)
		}
	}

	report, _ := validate.Dir(validate.Options{Root: filepath.Join(version{"1.0.0", "x"}.write(t), "skills")})
	err := bumprule.Against(ctx, "oci:"+layout+":9.9.9", source.Options{Opener: opener}, report)
	if errdefs.Of(err) != errdefs.InvalidArgument || !strings.Contains(err.Error(), "9.9.9") {
		t.Errorf("against a missing tag: %v (class %v), want an invalid-argument error naming it", err, errdefs.Of(err))
	}
}
