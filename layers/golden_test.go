package layers

import (
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
)

// The golden digests pin the layer format: any change to headers, entry
// order, modes or gzip settings changes them. They were computed once by
// this code and pasted here; a change must be deliberate, since every
// published layer digest moves with it.
const (
	goldenFixtureDigest   digest.Digest = "sha256:9200d66e7d4d33fba0e35427487f8e1794787a67290708aa8e206f76aa9cad1e"
	goldenGeneratedDigest digest.Digest = "sha256:2e324e584f75d514a26ffd913ce71a7580fcf8e85aefff9bab23499a2ccf1779"
)

var goldenSkillDigests = map[string]digest.Digest{
	"café-notes": "sha256:bddf6589ce3eb88590754381d86cb937903bda355ccb0442ad113d49769d6d5b",
	"pdf-tools":  "sha256:831110f1761f86cf9b280c85723150956bba5afb3bc295a37470f9d6b87b94fc",
}

const goldenFixture = "../testdata/layers/golden"

// generatedTree covers what git cannot commit: an empty directory, and a
// path longer than 255 bytes (which takes a PAX record).
func generatedTree() []fileSpec {
	long := "deep/" + strings.Repeat("long-directory-name/", 12) + "file-past-255-bytes.md"
	return []fileSpec{
		{path: "deep/SKILL.md", body: "---\nname: deep\n---\n"},
		{path: long, body: "needs a PAX path record\n"},
		{path: "deep/empty/"},
		{path: "deep/bin/tool", body: "#!/bin/sh\necho tool\n", exec: true},
		{path: "other/SKILL.md", body: "---\nname: other\n---\n"},
		{path: "other/a-c", body: "1"},
		{path: "other/a.txt", body: "2"},
		{path: "other/a/b", body: "3"},
		{path: "other/a0", body: "4"},
	}
}

func TestGoldenFixtureDigest(t *testing.T) {
	t.Parallel()
	res, _ := writeLayer(t, goldenFixture)
	if res.Digest != goldenFixtureDigest {
		t.Errorf("layer digest = %s, want %s", res.Digest, goldenFixtureDigest)
	}
	got := SkillDigests(res.Files)
	for skill, want := range goldenSkillDigests {
		if got[skill] != want {
			t.Errorf("skill %s digest = %s, want %s", skill, got[skill], want)
		}
	}
	if len(got) != len(goldenSkillDigests) {
		t.Errorf("skills = %v, want exactly %v", got, goldenSkillDigests)
	}
}

func TestGoldenGeneratedDigest(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	buildTree(t, root, generatedTree(), defaultBuild)
	res, _ := writeLayer(t, root)
	if res.Digest != goldenGeneratedDigest {
		t.Errorf("layer digest = %s, want %s", res.Digest, goldenGeneratedDigest)
	}
}
