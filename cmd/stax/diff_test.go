package main

import (
	"github.com/stax-dev/stax/pkg/workflow"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/diff"
	"github.com/stax-dev/stax/pkg/exitcode"
)

// treeFile is one file of a package directory a test writes.
type treeFile struct {
	content string
	exec    bool
}

type tree map[string]treeFile

const reviewSkill = `---
name: review-pr
description: Review a pull request. Use when the user asks for a code review.
version: 1.0.0
model: sonnet
metadata:
  owner: platform
  tier: 2
---
Read the diff, then the checklist.
`

// diffBase is a package with two multi-file skills, one file executable.
func diffBase() tree {
	return tree{
		"stax.yaml":                                {content: "name: demo\nversion: 1.0.0\n"},
		"skills/review-pr/SKILL.md":                {content: reviewSkill},
		"skills/review-pr/references/checklist.md": {content: "- tests\n- docs\n"},
		"skills/review-pr/scripts/stats.sh":        {content: "#!/bin/sh\ngit diff --stat\n", exec: true},
		"skills/fix-issue/SKILL.md": {content: "---\nname: fix-issue\n" +
			"description: Fix an issue. Use when the user links an issue.\n---\nReproduce first.\n"},
		"skills/fix-issue/assets/template.md": {content: "## Fix\n"},
	}
}

func writeTree(t *testing.T, files tree) string {
	t.Helper()
	root := t.TempDir()
	for rel, f := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if f.exec {
			mode = 0o755
		}
		if err := os.WriteFile(p, []byte(f.content), mode); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// editSkill replaces old with new in review-pr's SKILL.md.
func editSkill(old, new string) func(tree) {
	return func(files tree) {
		const p = "skills/review-pr/SKILL.md"
		f := files[p]
		f.content = strings.Replace(f.content, old, new, 1)
		files[p] = f
	}
}

// diffSummary is the part of a diff result a case states: no digests.
type diffSummary struct {
	Added, Removed []string
	Changed        map[string]skillSummary
}

type skillSummary struct {
	FilesAdded, FilesRemoved, FilesChanged []string
	// Modes lists the changed files whose execute bit changed, as
	// "path old→new".
	Modes       []string
	Frontmatter []diff.FieldChange
}

func summarize(r diff.PackageResult) diffSummary {
	s := diffSummary{Added: r.Added, Removed: r.Removed, Changed: map[string]skillSummary{}}
	for _, c := range r.Changed {
		ss := skillSummary{
			FilesAdded: c.Files.Added, FilesRemoved: c.Files.Removed,
			FilesChanged: []string{}, Modes: []string{}, Frontmatter: c.Frontmatter,
		}
		for _, f := range c.Files.Changed {
			ss.FilesChanged = append(ss.FilesChanged, f.Path)
			if f.ModeChanged() {
				ss.Modes = append(ss.Modes, f.Path+" "+f.OldMode+"→"+f.NewMode)
			}
		}
		s.Changed[c.Skill] = ss
	}
	return s
}

func TestDiffDirectories(t *testing.T) {
	t.Parallel()
	none := []string{}
	tests := []struct {
		name string
		edit func(tree)
		want diffSummary
		// text is the whole stdout of the text output.
		text string
		// metadata are the package fields expected to differ.
		metadata []diff.FieldChange
	}{
		{
			name: "identical",
			edit: func(tree) {},
			want: diffSummary{Added: none, Removed: none, Changed: map[string]skillSummary{}},
		},
		{
			name: "only the package version differs",
			edit: func(files tree) { files["stax.yaml"] = treeFile{content: "name: demo\nversion: 1.1.0\n"} },
			want: diffSummary{Added: none, Removed: none, Changed: map[string]skillSummary{}},
			text: "~ package version: \"1.0.0\" → \"1.1.0\"\n",
			metadata: []diff.FieldChange{
				{Field: "version", Change: diff.Changed, Old: "1.0.0", New: "1.1.0"},
			},
		},
		{
			name: "skill added",
			edit: func(files tree) {
				files["skills/new-skill/SKILL.md"] = treeFile{content: "---\nname: new-skill\ndescription: New. Use when asked.\n---\n"}
				files["skills/new-skill/references/a.md"] = treeFile{content: "a\n"}
			},
			want: diffSummary{Added: []string{"new-skill"}, Removed: none, Changed: map[string]skillSummary{}},
			text: "+ skill new-skill\n",
		},
		{
			name: "skill removed",
			edit: func(files tree) {
				delete(files, "skills/fix-issue/SKILL.md")
				delete(files, "skills/fix-issue/assets/template.md")
			},
			want: diffSummary{Added: none, Removed: []string{"fix-issue"}, Changed: map[string]skillSummary{}},
			text: "- skill fix-issue\n",
		},
		{
			name: "file added",
			edit: func(files tree) { files["skills/review-pr/references/style.md"] = treeFile{content: "style\n"} },
			want: diffSummary{Added: none, Removed: none, Changed: map[string]skillSummary{"review-pr": {
				FilesAdded: []string{"references/style.md"}, FilesRemoved: none, FilesChanged: none, Modes: none,
				Frontmatter: []diff.FieldChange{},
			}}},
			text: "~ skill review-pr\n    + file references/style.md\n",
		},
		{
			name: "file removed",
			edit: func(files tree) { delete(files, "skills/fix-issue/assets/template.md") },
			want: diffSummary{Added: none, Removed: none, Changed: map[string]skillSummary{"fix-issue": {
				FilesAdded: none, FilesRemoved: []string{"assets/template.md"}, FilesChanged: none, Modes: none,
				Frontmatter: []diff.FieldChange{},
			}}},
			text: "~ skill fix-issue\n    - file assets/template.md\n",
		},
		{
			name: "file changed",
			edit: func(files tree) {
				files["skills/review-pr/scripts/stats.sh"] = treeFile{content: "#!/bin/sh\ngit diff --numstat\n", exec: true}
			},
			want: diffSummary{Added: none, Removed: none, Changed: map[string]skillSummary{"review-pr": {
				FilesAdded: none, FilesRemoved: none, FilesChanged: []string{"scripts/stats.sh"}, Modes: none,
				Frontmatter: []diff.FieldChange{},
			}}},
			text: "~ skill review-pr\n    ~ file scripts/stats.sh\n",
		},
		{
			name: "execute bit cleared",
			edit: func(files tree) {
				f := files["skills/review-pr/scripts/stats.sh"]
				f.exec = false
				files["skills/review-pr/scripts/stats.sh"] = f
			},
			want: diffSummary{Added: none, Removed: none, Changed: map[string]skillSummary{"review-pr": {
				FilesAdded: none, FilesRemoved: none, FilesChanged: []string{"scripts/stats.sh"},
				Modes: []string{"scripts/stats.sh 755→644"}, Frontmatter: []diff.FieldChange{},
			}}},
			text: "~ skill review-pr\n    ~ file scripts/stats.sh (mode 755 → 644)\n",
		},
		{
			name: "frontmatter field changed",
			edit: editSkill("version: 1.0.0", "version: 1.1.0"),
			want: diffSummary{Added: none, Removed: none, Changed: map[string]skillSummary{"review-pr": {
				FilesAdded: none, FilesRemoved: none, FilesChanged: []string{"SKILL.md"}, Modes: none,
				Frontmatter: []diff.FieldChange{{Field: "version", Change: diff.Changed, Old: "1.0.0", New: "1.1.0"}},
			}}},
			text: "~ skill review-pr\n    ~ file SKILL.md\n    ~ frontmatter version: \"1.0.0\" → \"1.1.0\"\n",
		},
		{
			name: "frontmatter field added",
			edit: editSkill("model: sonnet\n", "model: sonnet\nallowed-tools:\n  - Read\n  - Grep\n"),
			want: diffSummary{Added: none, Removed: none, Changed: map[string]skillSummary{"review-pr": {
				FilesAdded: none, FilesRemoved: none, FilesChanged: []string{"SKILL.md"}, Modes: none,
				Frontmatter: []diff.FieldChange{{Field: "allowed-tools", Change: diff.Added, New: []any{"Read", "Grep"}}},
			}}},
			text: "~ skill review-pr\n    ~ file SKILL.md\n    + frontmatter allowed-tools: [\"Read\",\"Grep\"]\n",
		},
		{
			name: "frontmatter field removed",
			edit: editSkill("model: sonnet\n", ""),
			want: diffSummary{Added: none, Removed: none, Changed: map[string]skillSummary{"review-pr": {
				FilesAdded: none, FilesRemoved: none, FilesChanged: []string{"SKILL.md"}, Modes: none,
				Frontmatter: []diff.FieldChange{{Field: "model", Change: diff.Removed, Old: "sonnet"}},
			}}},
			text: "~ skill review-pr\n    ~ file SKILL.md\n    - frontmatter model: \"sonnet\"\n",
		},
		{
			name: "nested frontmatter field changed",
			edit: editSkill("owner: platform", "owner: security"),
			want: diffSummary{Added: none, Removed: none, Changed: map[string]skillSummary{"review-pr": {
				FilesAdded: none, FilesRemoved: none, FilesChanged: []string{"SKILL.md"}, Modes: none,
				Frontmatter: []diff.FieldChange{{Field: "metadata.owner", Change: diff.Changed, Old: "platform", New: "security"}},
			}}},
			text: "~ skill review-pr\n    ~ file SKILL.md\n    ~ frontmatter metadata.owner: \"platform\" → \"security\"\n",
		},
		{
			name: "several changes, sorted",
			edit: func(files tree) {
				editSkill("description: Review a pull request.", "description: Review a PR.")(files)
				files["skills/review-pr/assets/x.md"] = treeFile{content: "x\n"}
				delete(files, "skills/review-pr/references/checklist.md")
				files["skills/review-pr/scripts/stats.sh"] = treeFile{content: "#!/bin/sh\n"}
				files["skills/aaa/SKILL.md"] = treeFile{content: "---\nname: aaa\ndescription: A. Use when asked.\n---\n"}
				delete(files, "skills/fix-issue/SKILL.md")
				delete(files, "skills/fix-issue/assets/template.md")
			},
			want: diffSummary{Added: []string{"aaa"}, Removed: []string{"fix-issue"}, Changed: map[string]skillSummary{"review-pr": {
				FilesAdded: []string{"assets/x.md"}, FilesRemoved: []string{"references/checklist.md"},
				FilesChanged: []string{"SKILL.md", "scripts/stats.sh"}, Modes: []string{"scripts/stats.sh 755→644"},
				Frontmatter: []diff.FieldChange{{Field: "description", Change: diff.Changed,
					Old: "Review a pull request. Use when the user asks for a code review.",
					New: "Review a PR. Use when the user asks for a code review."}},
			}}},
			text: "+ skill aaa\n- skill fix-issue\n~ skill review-pr\n" +
				"    ~ file SKILL.md\n    + file assets/x.md\n    - file references/checklist.md\n" +
				"    ~ file scripts/stats.sh (content, and mode 755 → 644)\n" +
				"    ~ frontmatter description: \"Review a pull request. Use when the user asks for a code review.\" → " +
				"\"Review a PR. Use when the user asks for a code review.\"\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			useHome(t)
			a := writeTree(t, diffBase())
			files := diffBase()
			tt.edit(files)
			b := writeTree(t, files)
			identical := len(tt.want.Added)+len(tt.want.Removed)+len(tt.want.Changed) == 0

			r := runStax(t, "diff", a, b, "--output", "json", "--exit-code")
			wantCode := exitcode.OK
			if !identical {
				wantCode = 1
			}
			if r.Code != wantCode {
				t.Fatalf("--exit-code: exit %d, want %d\n%s", r.Code, wantCode, r.Stderr)
			}
			var got diff.PackageResult
			decodeJSON(t, r.Stdout, &got)
			if got.Identical != identical {
				t.Errorf("identical = %v, want %v", got.Identical, identical)
			}
			if diffJSON := mustJSON(t, summarize(got)); diffJSON != mustJSON(t, tt.want) {
				t.Errorf("diff:\n got %s\nwant %s", diffJSON, mustJSON(t, tt.want))
			}
			wantMeta := tt.metadata
			if wantMeta == nil {
				wantMeta = []diff.FieldChange{}
			}
			if mustJSON(t, got.Metadata) != mustJSON(t, wantMeta) {
				t.Errorf("metadata = %s, want %s", mustJSON(t, got.Metadata), mustJSON(t, wantMeta))
			}
			if got.A.Source != "directory" || got.B.Source != "directory" || got.A.Name != "demo" {
				t.Errorf("sides = %+v, %+v", got.A, got.B)
			}
			// Empty lists are [], never null.
			for _, key := range []string{`"added": [`, `"removed": [`, `"changed": [`, `"notices": [`, `"metadata": [`} {
				if !strings.Contains(r.Stdout, key) {
					t.Errorf("JSON lacks %s:\n%s", key, r.Stdout)
				}
			}

			// Without --exit-code, differing packages are not a failure.
			text := runStax(t, "diff", a, b)
			if text.Code != 0 {
				t.Fatalf("text: exit %d\n%s", text.Code, text.Stderr)
			}
			if text.Stdout != tt.text {
				t.Errorf("text output:\n%s\nwant:\n%s", text.Stdout, tt.text)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	var b strings.Builder
	if err := writeJSON(&b, v); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestDiffRegistryAgainstDirectory(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	a := writeTree(t, diffBase())
	ref := reg.Host + "/x/y:1"
	r := runStax(t, "push", a, ref, "--output", "json")
	if r.Code != 0 {
		t.Fatalf("push: exit %d\n%s", r.Code, r.Stderr)
	}
	var pushed workflow.Transfer
	decodeJSON(t, r.Stdout, &pushed)
	layer := "/blobs/" + pushed.Layers[0].Digest.String()
	layerFetches := func(since int) int {
		n := 0
		for _, req := range reg.Requests()[since:] {
			if req.Method == "GET" && strings.HasSuffix(req.Path, layer) && req.Status == 200 {
				n++
			}
		}
		return n
	}

	before := len(reg.Requests())
	r = runStax(t, "diff", ref, a, "--exit-code", "--output", "json")
	if r.Code != 0 {
		t.Fatalf("same content: exit %d\n%s", r.Code, r.Stderr)
	}
	var same diff.PackageResult
	decodeJSON(t, r.Stdout, &same)
	if !same.Identical || same.A.Source != "remote" || same.A.Digest != same.B.Digest {
		t.Errorf("same content: %+v", same)
	}
	// One layer digest on both sides: nothing in it can differ.
	if n := layerFetches(before); n != 0 {
		t.Errorf("the layer was fetched %d times for packages with the same layer", n)
	}

	files := diffBase()
	files["skills/review-pr/references/extra.md"] = treeFile{content: "more\n"}
	b := writeTree(t, files)
	before = len(reg.Requests())
	r = runStax(t, "diff", ref, b, "--exit-code", "--output", "json")
	if r.Code != 1 {
		t.Fatalf("different content: exit %d, want 1\n%s", r.Code, r.Stderr)
	}
	var got diff.PackageResult
	decodeJSON(t, r.Stdout, &got)
	if len(got.Changed) != 1 || got.Changed[0].Skill != "review-pr" ||
		strings.Join(got.Changed[0].Files.Added, ",") != "references/extra.md" {
		t.Errorf("changed = %+v", got.Changed)
	}
	// File-level data comes from the layer itself, fetched from the registry.
	if n := layerFetches(before); n != 1 {
		t.Errorf("the layer was fetched %d times, want 1", n)
	}
}

// A layer the registry will not send is a registry error (3); one whose
// bytes do not match its digest is a verification error (6).
func TestDiffRemoteLayerFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		fault func(repo string, layer digest.Digest) *registrytest.Fault
		code  int
	}{
		{"refused", func(repo string, layer digest.Digest) *registrytest.Fault {
			return registrytest.Fail(http.MethodGet, "/blobs/"+layer.String()+"$", http.StatusForbidden).Times(-1)
		}, exitcode.Registry},
		{"corrupted", func(repo string, layer digest.Digest) *registrytest.Fault {
			return registrytest.CorruptBlob(repo, layer).Times(-1)
		}, exitcode.Verification},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			useHome(t)
			reg := registrytest.New(t)
			a := writeTree(t, diffBase())
			r := runStax(t, "push", a, reg.Host+"/x/y:1", "--output", "json")
			if r.Code != 0 {
				t.Fatalf("push: exit %d\n%s", r.Code, r.Stderr)
			}
			var pushed workflow.Transfer
			decodeJSON(t, r.Stdout, &pushed)
			fault := tt.fault("x/y", pushed.Layers[0].Digest)
			reg.AddFaults(fault)

			files := diffBase()
			files["skills/fix-issue/extra.md"] = treeFile{content: "x\n"}
			r = runStax(t, "diff", reg.Host+"/x/y:1", writeTree(t, files))
			if r.Code != tt.code || fault.Hits() == 0 {
				t.Errorf("exit %d (fault hit %d times), want %d\n%s", r.Code, fault.Hits(), tt.code, r.Stderr)
			}
		})
	}
}

func TestDiffLayoutAgainstStore(t *testing.T) {
	t.Parallel()
	useHome(t)
	layout := filepath.Join(t.TempDir(), "out")
	if r := runStax(t, "pack", writeTree(t, diffBase()), "-t", "oci:"+layout+":1"); r.Code != 0 {
		t.Fatalf("pack to layout: %s", r.Stderr)
	}
	files := diffBase()
	files["stax.yaml"] = treeFile{content: "name: demo\nversion: 2.0.0\n"}
	delete(files, "skills/fix-issue/assets/template.md")
	if r := runStax(t, "pack", writeTree(t, files)); r.Code != 0 {
		t.Fatalf("pack to store: %s", r.Stderr)
	}

	r := runStax(t, "diff", "oci:"+layout+":1", "demo:2.0.0", "--output", "json")
	if r.Code != 0 {
		t.Fatalf("diff: exit %d\n%s", r.Code, r.Stderr)
	}
	var got diff.PackageResult
	decodeJSON(t, r.Stdout, &got)
	if got.A.Source != "layout" || got.B.Source != "local" || got.A.Version != "1.0.0" || got.B.Version != "2.0.0" {
		t.Errorf("sides = %+v, %+v", got.A, got.B)
	}
	if got.Identical || len(got.Changed) != 1 || strings.Join(got.Changed[0].Files.Removed, ",") != "assets/template.md" {
		t.Errorf("result = %s", r.Stdout)
	}
	if len(got.Metadata) != 1 || got.Metadata[0].Field != "version" {
		t.Errorf("metadata = %+v", got.Metadata)
	}
}

func TestDiffCorruptLayerExits6(t *testing.T) {
	t.Parallel()
	useHome(t)
	dir := writeTree(t, diffBase())
	layout := filepath.Join(t.TempDir(), "out")
	r := runStax(t, "pack", dir, "-t", "oci:"+layout+":1", "--output", "json")
	if r.Code != 0 {
		t.Fatalf("pack: %s", r.Stderr)
	}
	var packed workflow.PackResult
	decodeJSON(t, r.Stdout, &packed)
	// Same size, other bytes: only reading the layer can notice.
	blob := filepath.Join(layout, "blobs", "sha256", packed.Layers[0].Digest.Encoded())
	data, err := os.ReadFile(blob)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0xff
	if err := os.WriteFile(blob, data, 0o644); err != nil {
		t.Fatal(err)
	}
	files := diffBase()
	files["skills/fix-issue/extra.md"] = treeFile{content: "x\n"}
	if r := runStax(t, "diff", "oci:"+layout+":1", writeTree(t, files)); r.Code != exitcode.Verification {
		t.Errorf("exit %d, want %d\n%s", r.Code, exitcode.Verification, r.Stderr)
	}
}

func TestDiffBadReference(t *testing.T) {
	t.Parallel()
	useHome(t)
	dir := writeTree(t, diffBase())
	missing := filepath.Join(t.TempDir(), "nothing")
	tests := map[string][]string{
		"invalid reference": {"diff", "Not A Reference!", dir},
		"uppercase":         {"diff", dir, "Acme/Skills:1"},
		"one argument":      {"diff", dir},
		"bad --max-size":    {"diff", dir, dir, "--max-size", "lots"},
	}
	for _, name := range slices.Sorted(maps.Keys(tests)) {
		t.Run(name, func(t *testing.T) {
			r := runStax(t, tests[name]...)
			if r.Code != exitcode.Validation || !strings.Contains(r.Stderr, "Error:") {
				t.Errorf("exit %d, want %d\n%s", r.Code, exitcode.Validation, r.Stderr)
			}
		})
	}
	// A layout that is not there is the file system's error.
	if r := runStax(t, "diff", dir, "oci:"+missing+":1"); r.Code != exitcode.FileSystem || !strings.Contains(r.Stderr, "no OCI layout at "+missing) {
		t.Errorf("diff against a missing OCI layout: exit %d, want %d\n%s", r.Code, exitcode.FileSystem, r.Stderr)
	}
}
