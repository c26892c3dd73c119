package packagetest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"maps"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/registry/remote"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/artifact"
)

// RefImpl is a package as the reference implementation of stax (the
// TypeScript stax CLI) writes it: labelled as an agent, with a config of
// kind agent that lists no skills, layers without annotations in its
// canonical order, and its dependencies in the packages layer only, by
// reference and kind, without a digest.
type RefImpl struct {
	Name, Version string
	// Skills are the skills layer's files, by path (hello/SKILL.md); no
	// skills layer when empty.
	Skills map[string]string
	// Dependencies are the references the packages layer lists; no
	// packages layer when empty.
	Dependencies []string
	// Layers are the other layers: see Rules, Prompt, MCP and Agent.
	Layers []Layer
}

// Layer is a layer of a RefImpl package other than skills and packages.
type Layer struct {
	MediaType string
	Data      []byte
}

// refImplOrder is the order the reference implementation sorts layers in,
// for stable digests; a media type not listed goes last.
var refImplOrder = []string{
	artifact.MediaTypeKnowledge, artifact.MediaTypeRules, layers.MediaTypeSkills,
	artifact.MediaTypeMCP, artifact.MediaTypeSecrets, artifact.MediaTypePackages,
	artifact.MediaTypeInstructionTree, artifact.MediaTypeSurfaces, artifact.MediaTypePrompt,
	artifact.MediaTypePersona, artifact.MediaTypeSubagents, artifact.MediaTypeMemory,
}

// Rules is a rules layer of one rule.
func Rules(t testing.TB) Layer {
	return Layer{artifact.MediaTypeRules, TarGz(t, map[string]string{"no-force-push.md": "Never force-push to main.\n"})}
}

// Prompt is a prompt layer.
func Prompt() Layer {
	return Layer{artifact.MediaTypePrompt, []byte("You are a careful release engineer.\n")}
}

// MCP is a layer of MCP server configs.
func MCP() Layer {
	return Layer{artifact.MediaTypeMCP, []byte(`{"servers":{"github":{"args":["mcp"],"command":"gh"}}}`)}
}

// Agent are the layers of an agent artifact beside its skills: knowledge,
// rules, MCP server configs, prompt, persona, subagents and memory.
func Agent(t testing.TB) []Layer {
	return []Layer{
		{artifact.MediaTypeKnowledge, TarGz(t, map[string]string{"runbook.md": "Restart the service.\n"})},
		Rules(t), MCP(), Prompt(),
		{artifact.MediaTypePersona, []byte(`{"name":"Ada","tone":"terse"}`)},
		{artifact.MediaTypeSubagents, []byte(`[{"name":"reviewer","prompt":"Review the diff."}]`)},
		{artifact.MediaTypeMemory, TarGz(t, map[string]string{"notes.md": "The deploy window is Tuesday.\n"})},
	}
}

// Skill is the SKILL.md of a skill named name.
func Skill(name string) string {
	return "---\nname: " + name + "\ndescription: A skill. Use when testing other writers' packages.\n---\nDo it.\n"
}

// Push writes p to ref (host/repository:tag on a plain-HTTP registry) as
// the reference implementation pushes it, and returns the manifest's
// digest.
func (p RefImpl) Push(t testing.TB, ref string) digest.Digest {
	t.Helper()
	ctx := context.Background()
	repoName, tag, ok := strings.Cut(ref[strings.LastIndex(ref, "/"):], ":")
	if !ok {
		t.Fatalf("%s names no tag", ref)
	}
	repo, err := remote.NewRepository(ref[:strings.LastIndex(ref, "/")] + repoName)
	if err != nil {
		t.Fatal(err)
	}
	repo.PlainHTTP = true
	manifest, blobs := p.Build(t)
	for _, b := range blobs {
		if err := repo.Push(ctx, content.NewDescriptorFromBytes(b.MediaType, b.Data), bytes.NewReader(b.Data)); err != nil {
			t.Fatal(err)
		}
	}
	desc := content.NewDescriptorFromBytes(ocispec.MediaTypeImageManifest, manifest)
	if err := repo.PushReference(ctx, desc, bytes.NewReader(manifest), tag); err != nil {
		t.Fatal(err)
	}
	return desc.Digest
}

// Build is the manifest of p, and its config and layers as blobs.
func (p RefImpl) Build(t testing.TB) (manifest []byte, blobs []Layer) {
	t.Helper()
	all := slices.Clone(p.Layers)
	if len(p.Skills) > 0 {
		all = append(all, Layer{layers.MediaTypeSkills, TarGz(t, p.Skills)})
	}
	if len(p.Dependencies) > 0 {
		var deps []map[string]string
		for _, d := range p.Dependencies {
			deps = append(deps, map[string]string{"kind": "package", "ref": d})
		}
		all = append(all, Layer{artifact.MediaTypePackages, canonical(t, map[string]any{"packages": deps, "specVersion": "1.0.0"})})
	}
	slices.SortStableFunc(all, func(a, b Layer) int { return order(a.MediaType) - order(b.MediaType) })
	config := canonical(t, map[string]any{
		"adapter":     map[string]string{"adapterVersion": "1.0.0", "runtime": "claude-code", "type": "claude-code"},
		"description": p.Name + ", as the reference implementation writes it",
		"kind":        artifact.KindAgent, "name": p.Name, "specVersion": "1.0.0", "version": p.Version,
	})
	m := map[string]any{
		"schemaVersion": 2,
		"mediaType":     ocispec.MediaTypeImageManifest,
		"artifactType":  artifact.ArtifactTypeAgent,
		"config":        content.NewDescriptorFromBytes(artifact.MediaTypeConfig, config),
		"annotations": map[string]string{
			ocispec.AnnotationCreated: "1970-01-01T00:00:00.000Z", ocispec.AnnotationVersion: p.Version,
			ocispec.AnnotationTitle: p.Name, artifact.AnnotationSpecVersion: "1.0.0",
			"dev.stax.adapter.type": "claude-code", "dev.stax.adapter.runtime": "claude-code",
		},
	}
	descs := []ocispec.Descriptor{}
	for _, l := range all {
		descs = append(descs, content.NewDescriptorFromBytes(l.MediaType, l.Data))
	}
	m["layers"] = descs
	return canonical(t, m), append(all, Layer{artifact.MediaTypeConfig, config})
}

func order(mediaType string) int {
	if i := slices.Index(refImplOrder, mediaType); i >= 0 {
		return i
	}
	return len(refImplOrder)
}

func canonical(t testing.TB, v any) []byte {
	t.Helper()
	b, err := artifact.Canonical(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TarGz is a deterministic tar+gzip of files, by path, as the family's
// tar layers are written: sorted, each directory before its children,
// mtime 0, mode 0644.
func TarGz(t testing.TB, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	dirs := map[string]bool{}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		var parents []string
		for dir := path.Dir(name); dir != "." && !dirs[dir]; dir = path.Dir(dir) {
			parents = append(parents, dir)
		}
		for _, dir := range slices.Backward(parents) {
			dirs[dir] = true
			if err := tw.WriteHeader(&tar.Header{Name: dir + "/", Mode: 0o755, Typeflag: tar.TypeDir}); err != nil {
				t.Fatal(err)
			}
		}
		body := files[name]
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
