package pack_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
	"oras.land/oras-go/v2/content/memory"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/pack"
	"github.com/stax-dev/stax/pkg/staxyaml"
	"github.com/stax-dev/stax/pkg/validate"
)

func writeFile(t *testing.T, path, body string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil { // past the umask
		t.Fatal(err)
	}
}

const skillMD = "---\nname: greet\ndescription: Greets the user. Use when testing pack determinism.\n---\nSay hello.\n"

// writeSkills writes one package; mode is the permission bits its regular
// files get, as a different umask would leave them.
func writeSkills(t *testing.T, root string, mode os.FileMode, mtime time.Time) {
	t.Helper()
	files := map[string]string{
		"stax.yaml":                          "name: demo\nversion: 1.2.3\n",
		"skills/greet/SKILL.md":              skillMD,
		"skills/greet/references/extra.md":   "more\n",
		"skills/greet/scripts/run.sh":        "#!/bin/sh\necho hi\n",
		"skills/greet/assets/data/table.csv": "a,b\n",
	}
	for name, body := range files {
		m := mode
		if strings.HasSuffix(name, ".sh") {
			m |= 0o100
		}
		writeFile(t, filepath.Join(root, name), body, m)
	}
	filepath.Walk(root, func(path string, _ os.FileInfo, _ error) error {
		return os.Chtimes(path, mtime, mtime)
	})
}

func build(t *testing.T, root string, opts pack.Options) (*pack.Result, error) {
	t.Helper()
	p, err := staxyaml.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	opts.Project = p
	return pack.Build(context.Background(), memory.New(), opts)
}

func TestBuildIsDeterministic(t *testing.T) {
	base := t.TempDir()
	writeSkills(t, base, 0o644, time.Unix(1_600_000_000, 0))
	want, err := build(t, base, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		mode  os.FileMode
		mtime time.Time
	}{
		{"other mtimes", 0o644, time.Unix(1_700_000_000, 0)},
		{"umask 077", 0o600, time.Unix(1_600_000_000, 0)},
		{"umask 002", 0o664, time.Now()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			writeSkills(t, root, tt.mode, tt.mtime)
			got, err := build(t, root, pack.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got.Descriptor.Digest != want.Descriptor.Digest {
				t.Errorf("digest %s, want %s: the same skills must build the same package", got.Descriptor.Digest, want.Descriptor.Digest)
			}
		})
	}
	// What is not the same input gives another digest.
	changed := map[string]func(t *testing.T, root string) pack.Options{
		"content": func(t *testing.T, root string) pack.Options {
			writeFile(t, filepath.Join(root, "skills/greet/references/extra.md"), "other\n", 0o644)
			return pack.Options{}
		},
		"created": func(*testing.T, string) pack.Options { return pack.Options{Created: time.Unix(86400, 0)} },
		"version": func(*testing.T, string) pack.Options {
			return pack.Options{Overrides: staxyaml.Definition{Version: "2.0.0"}}
		},
	}
	for name, change := range changed {
		t.Run("changed "+name, func(t *testing.T) {
			root := t.TempDir()
			writeSkills(t, root, 0o644, time.Unix(1_600_000_000, 0))
			got, err := build(t, root, change(t, root))
			if err != nil {
				t.Fatal(err)
			}
			if got.Descriptor.Digest == want.Descriptor.Digest {
				t.Errorf("changing the %s kept digest %s", name, got.Descriptor.Digest)
			}
		})
	}
	if want.Config.Name != "demo" || want.Config.Version != "1.2.3" || len(want.Config.Skills) != 1 || want.Config.Skills[0].Path != "greet" || want.Config.Skills[0].Digest == "" {
		t.Errorf("config %+v, want demo 1.2.3 with the skill greet and its digest", want.Config)
	}
}

func TestBuildSkillsDirectory(t *testing.T) {
	tests := []struct {
		name      string
		files     map[string]string
		opts      pack.Options
		wantErr   string
		wantWarn  string
		wantLayer bool
	}{
		{
			name:    "named skills directory missing",
			files:   map[string]string{"stax.yaml": "name: p\nversion: 1.0.0\nskills: agent-skills\n"},
			wantErr: "skills: agent-skills names a directory that does not exist",
		},
		{
			name:     "default skills directory missing, no packages",
			files:    map[string]string{"stax.yaml": "name: p\nversion: 1.0.0\n"},
			wantWarn: "the package is empty",
		},
		{
			name:    "empty package refused when strict",
			files:   map[string]string{"stax.yaml": "name: p\nversion: 1.0.0\n"},
			opts:    pack.Options{Strict: true},
			wantErr: "the package is empty",
		},
		{
			name:    "packages declared but not resolved",
			files:   map[string]string{"stax.yaml": "name: p\nversion: 1.0.0\npackages: [example.com/a/b:1]\n"},
			wantErr: "declares 1 packages but 0 were resolved",
		},
		{
			name:      "named skills directory present",
			files:     map[string]string{"stax.yaml": "name: p\nversion: 1.0.0\nskills: agent-skills\n", "agent-skills/greet/SKILL.md": skillMD},
			wantLayer: true,
		},
		{
			name:      "no stax.yaml: the directory is the skills directory",
			files:     map[string]string{"greet/SKILL.md": skillMD},
			wantLayer: true,
		},
		{
			name:    "invalid skill",
			files:   map[string]string{"greet/SKILL.md": "---\nname: Not Valid\n---\n"},
			wantErr: "do not validate",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			for name, body := range tt.files {
				writeFile(t, filepath.Join(root, name), body, 0o644)
			}
			res, err := build(t, root, tt.opts)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Build: %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Build: %v", err)
			}
			hasLayer := res.Config != nil && len(res.Config.Skills) > 0
			if hasLayer != tt.wantLayer {
				t.Errorf("skills recorded = %v, want %v", hasLayer, tt.wantLayer)
			}
			if tt.wantWarn != "" {
				if len(res.Report.Warnings) == 0 || !strings.Contains(res.Report.Warnings[0].Message, tt.wantWarn) {
					t.Errorf("warnings %+v, want %q", res.Report.Warnings, tt.wantWarn)
				}
			}
		})
	}
}

func TestBuildInvalidErrorListsEveryError(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "one/SKILL.md"), "---\nname: Bad One\n---\n", 0o644)
	writeFile(t, filepath.Join(root, "two/SKILL.md"), "no frontmatter\n", 0o644)
	_, err := build(t, root, pack.Options{})
	var invalid *pack.InvalidError
	if !errors.As(err, &invalid) {
		t.Fatalf("Build: %v, want an InvalidError", err)
	}
	if len(invalid.Report.Errors) < 2 {
		t.Fatalf("errors %+v, want one per bad skill", invalid.Report.Errors)
	}
	for _, d := range invalid.Report.Errors {
		if !strings.Contains(err.Error(), d.Message) {
			t.Errorf("message lacks %q:\n%s", d.Message, err)
		}
	}
}

// A file next to the skill directories is no skill: the layer reader
// would refuse it, so pack refuses it by name before writing a layer.
func TestBuildRefusesTopLevelFile(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "fix-issue/SKILL.md"), skillMD, 0o644)
	writeFile(t, filepath.Join(root, "README.md"), "About these skills.\n", 0o644)
	_, err := build(t, root, pack.Options{})
	var invalid *pack.InvalidError
	if !errors.As(err, &invalid) || errdefs.Of(err) != errdefs.InvalidArgument {
		t.Fatalf("Build: %v, want an InvalidError", err)
	}
	if len(invalid.Report.Errors) != 1 || invalid.Report.Errors[0].File != filepath.Join(root, "README.md") || invalid.Report.Errors[0].Code != validate.CodeStrayFile {
		t.Errorf("errors %+v, want README.md's stray-file error", invalid.Report.Errors)
	}
}

// A path deeper than the layer reader accepts is refused by pack, named,
// before a layer is written.
func TestBuildRefusesPathTooDeep(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "fix-issue/SKILL.md"), skillMD, 0o644)
	deep := "fix-issue/" + strings.Repeat("d/", 40) + "notes.md"
	writeFile(t, filepath.Join(root, filepath.FromSlash(deep)), "deep\n", 0o644)
	_, err := build(t, root, pack.Options{})
	var invalid *pack.InvalidError
	if !errors.As(err, &invalid) || errdefs.Of(err) != errdefs.InvalidArgument {
		t.Fatalf("Build: %v, want an InvalidError", err)
	}
	if len(invalid.Report.Errors) != 1 || invalid.Report.Errors[0].Code != string(layers.ProblemUnsafeName) ||
		!strings.HasPrefix(invalid.Report.Errors[0].File, filepath.Join(root, "fix-issue", "d")) || !strings.Contains(err.Error(), "over the limit of 32") {
		t.Errorf("Build: %v, want the path past the limit named", err)
	}
}

func TestBuildDefaults(t *testing.T) {
	root := filepath.Join(t.TempDir(), "My Skills")
	writeFile(t, filepath.Join(root, "greet/SKILL.md"), skillMD, 0o644)
	res, err := build(t, root, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Definition.Name != "my-skills" || res.Definition.Version != pack.DefaultVersion {
		t.Errorf("definition %+v, want the name from the directory and version %s", res.Definition, pack.DefaultVersion)
	}
	if len(res.Notices) != 2 {
		t.Errorf("notices %q, want one for the name and one for the version", res.Notices)
	}
	res, err = build(t, root, pack.Options{Overrides: staxyaml.Definition{Name: "flagged", Version: "3.0.0"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Config.Name != "flagged" || res.Config.Version != "3.0.0" || len(res.Notices) != 0 {
		t.Errorf("with flags: config %s %s, notices %q", res.Config.Name, res.Config.Version, res.Notices)
	}
	if _, err := build(t, root, pack.Options{Overrides: staxyaml.Definition{Version: "no/tag"}}); err == nil {
		t.Error("a version that is no valid tag built")
	}
}

func TestCheckPublishable(t *testing.T) {
	d := digest.FromString("x")
	tests := []struct {
		ref      string
		wantPath bool
	}{
		{"ghcr.io/acme/base:1.0.0", false},
		{"oci:/layouts/base:1", false},
		{"../base", true},
		{"./base", true},
		{"/abs/base", true},
		{".", true},
	}
	for _, tt := range tests {
		err := pack.CheckPublishable("demo", []artifact.PackageRef{{Ref: tt.ref, Digest: d}})
		var pathErr *pack.PathDependencyError
		if got := errors.As(err, &pathErr); got != tt.wantPath {
			t.Errorf("%s: %v, want a path dependency error: %v", tt.ref, err, tt.wantPath)
			continue
		}
		if tt.wantPath && (pathErr.Path != tt.ref || !strings.Contains(err.Error(), "--push-dependencies")) {
			t.Errorf("%s: %v", tt.ref, err)
		}
	}
}

// resolverFunc is a pack.Resolver that resolves with a function.
type resolverFunc func(ctx context.Context, p *staxyaml.Project, build pack.Options) ([]artifact.PackageRef, error)

func (f resolverFunc) Resolve(ctx context.Context, p *staxyaml.Project, build pack.Options) ([]artifact.PackageRef, error) {
	return f(ctx, p, build)
}

// Project records the packages its resolver resolved, and tells the
// resolver how the project is built, which is how the package directories
// among them are built. The resolver's refusal is the build's.
func TestProjectRecordsWhatTheResolverResolved(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := t.TempDir()
	writeSkills(t, root, 0o644, time.Unix(0, 0))
	writeFile(t, filepath.Join(root, "stax.yaml"), "name: demo\nversion: 1.2.3\npackages:\n  - ghcr.io/acme/base:1.0.0\n", 0o644)
	p, err := staxyaml.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	base := artifact.PackageRef{Digest: digest.FromString("base"), Kind: artifact.KindPackage, Ref: "ghcr.io/acme/base:1.0.0"}
	var asked *staxyaml.Project
	var askedBuild pack.Options
	resolver := resolverFunc(func(_ context.Context, got *staxyaml.Project, build pack.Options) ([]artifact.PackageRef, error) {
		asked, askedBuild = got, build
		return []artifact.PackageRef{base}, nil
	})
	res, err := pack.Project(ctx, p, memory.New(), resolver, pack.Options{Publish: true})
	if err != nil {
		t.Fatal(err)
	}
	if asked != p || !askedBuild.Publish {
		t.Errorf("the resolver was asked for %v with %+v, want the project built for publishing", asked, askedBuild)
	}
	if len(res.Config.Packages) != 1 || res.Config.Packages[0] != base {
		t.Errorf("recorded %+v, want %+v", res.Config.Packages, base)
	}

	refused := errdefs.Resolution(errors.New("ghcr.io/acme/base:1.0.0: not found"))
	_, err = pack.Project(ctx, p, memory.New(), resolverFunc(func(context.Context, *staxyaml.Project, pack.Options) ([]artifact.PackageRef, error) {
		return nil, refused
	}), pack.Options{})
	if !errors.Is(err, refused) {
		t.Errorf("with a resolver that refuses: %v, want its refusal", err)
	}

	// Without a resolver, the packages it declares cannot be recorded.
	if _, err := pack.Project(ctx, p, memory.New(), nil, pack.Options{}); errdefs.Of(err) != errdefs.Unresolved {
		t.Errorf("without a resolver: %v (class %v), want a resolution error", err, errdefs.Of(err))
	}
}
