package install

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/skill"
	"github.com/stax-dev/stax/pkg/stateful"
)

// oversizeSkillMD has a frontmatter just over skill.MaxFrontmatterSize.
func oversizeSkillMD() string {
	return "---\nname: big\ndescription: d\nnotes: |\n" +
		strings.Repeat("  "+strings.Repeat("x", 61)+"\n", skill.MaxFrontmatterSize/64+1) + "---\nbody\n"
}

// A package whose SKILL.md is over the limits every command loads skills
// with is refused before anything is installed, from a layer or from a
// directory.
func TestOversizeSkillMDIsRefused(t *testing.T) {
	t.Parallel()
	data := oversizeSkillMD()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	if err := tw.WriteHeader(&tar.Header{Name: "big/SKILL.md", Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg}); err != nil {
		t.Fatal(err)
	}
	io.WriteString(tw, data)
	tw.Close()
	zw.Close()
	digests := layers.SkillDigests([]layers.FileDigest{{Path: "big/SKILL.md", Digest: digest.NewDigestFromBytes(digest.SHA256, sum(data))}})
	l := &Layer{Name: "big", Open: func(_ context.Context, read func(io.Reader) error) error {
		return read(bytes.NewReader(buf.Bytes()))
	}}
	fromLayer := Skill{Path: "big", Layer: l, Package: "p", Digest: digests["big"]}
	fromDir := testSkill(t, "big", data)

	for name, s := range map[string]Skill{"layer": fromLayer, "directory": fromDir} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "skills")
			_, err := Install(context.Background(), []Skill{s}, Options{Dir: dir, LockDir: t.TempDir()})
			if !errors.Is(err, skill.ErrTooLarge) || errdefs.Of(err) != errdefs.FailedPrecondition || !strings.Contains(err.Error(), "big") || !strings.Contains(err.Error(), "passes the limit") {
				t.Fatalf("err = %v (%v), want a failed precondition naming the skill", err, errdefs.Of(err))
			}
			if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the folder was left: %v", err)
			}
		})
	}
}

// A SKILL.md within the limit that resolving ${STAX_SKILL_DIR} would push
// past it is refused too: installed, no command would load it.
func TestSkillMDGrownPastLimitIsRefused(t *testing.T) {
	t.Parallel()
	head := "---\nname: grow\ndescription: d\n---\n"
	s := testSkill(t, "grow", head+strings.Repeat("${STAX_SKILL_DIR}\n", (skill.MaxFileSize-len(head))/18))
	dir := filepath.Join(t.TempDir(), "skills")
	_, err := Install(context.Background(), []Skill{s}, Options{Dir: dir, LockDir: t.TempDir()})
	if err == nil || errdefs.Of(err) != errdefs.FailedPrecondition || !strings.Contains(err.Error(), "once ${STAX_SKILL_DIR}") {
		t.Fatalf("err = %v (%v), want a failed precondition about the resolved paths", err, errdefs.Of(err))
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the folder was left: %v", err)
	}
}

// A stateful sibling over the limit render and the MCP server read of one
// is refused while it is written, so that no installed skill is one they
// refuse; the error names the skill.
func TestOversizeStatefulFileIsRefused(t *testing.T) {
	t.Parallel()
	s := testSkill(t, "big", "---\nname: big\ndescription: d\n---\nbody\n")
	filetest.WriteFile(t, filepath.Join(s.Source, stateful.MemoryFile), strings.Repeat("x", stateful.MaxFileSize+1))
	dir := filepath.Join(t.TempDir(), "skills")
	_, err := Install(context.Background(), []Skill{s}, Options{Dir: dir, LockDir: t.TempDir()})
	if !errors.Is(err, skill.ErrTooLarge) || errdefs.Of(err) != errdefs.FailedPrecondition || !strings.Contains(err.Error(), "big") || !strings.Contains(err.Error(), stateful.MemoryFile) {
		t.Fatalf("err = %v (%v), want a failed precondition naming the skill and the file", err, errdefs.Of(err))
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the folder was left: %v", err)
	}
}
