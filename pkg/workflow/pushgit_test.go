package workflow_test

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stax-dev/stax/internal/gittest"
	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/workflow"
)

// TestPushGitSourceRefusesDirectoryOptions: the options that shape only a
// package built from a directory are refused for a git source, before
// the repository is asked anything or the destination made, to a library
// caller as to stax push; with none of them the same push succeeds.
func TestPushGitSourceRefusesDirectoryOptions(t *testing.T) {
	t.Parallel()
	srv, src := pdfRepo(t)
	var warnings bytes.Buffer
	env := newEnvAt(t, t.TempDir(), &warnings)
	dst := layout(t)
	for _, tc := range []struct {
		flag string
		set  func(*workflow.PushOptions)
	}{
		{"--created", func(o *workflow.PushOptions) { o.Build.Created = time.Unix(1, 0) }},
		{"--symlink-mode", func(o *workflow.PushOptions) { o.Build.Symlinks = layers.SymlinkFlatten }},
		{"--against", func(o *workflow.PushOptions) { o.Against = "oci:" + t.TempDir() + ":0.9.0" }},
		{"--allow-placeholders", func(o *workflow.PushOptions) { o.AllowPlaceholders = true }},
		{"--push-dependencies", func(o *workflow.PushOptions) { o.PushDependencies = true }},
	} {
		srv.Reset()
		opts := workflow.PushOptions{Source: src, Destination: dst + ":1.0.0"}
		tc.set(&opts)
		_, err := workflow.Push(context.Background(), env, opts)
		if errdefs.Of(err) != errdefs.InvalidArgument || !strings.Contains(err.Error(), tc.flag) || !strings.Contains(err.Error(), "git repository") {
			t.Errorf("push of a git source with %s: %v; want a refusal of class invalid naming it", tc.flag, err)
		}
		if n := srv.Requests(); n != 0 {
			t.Errorf("push with %s asked the repository %d times before refusing", tc.flag, n)
		}
		if _, err := os.Stat(strings.TrimPrefix(dst, "oci:")); !os.IsNotExist(err) {
			t.Errorf("push with %s made its destination: %v", tc.flag, err)
		}
	}
	if _, err := workflow.Push(context.Background(), env, workflow.PushOptions{Source: src, Destination: dst + ":1.0.0"}); err != nil {
		t.Errorf("push of a git source: %v", err)
	}
}

// TestPushGitSourceHoldsToMaxFiles: the file limit a caller gives Push
// bounds the tree taken from a git source, as it bounds a directory's.
func TestPushGitSourceHoldsToMaxFiles(t *testing.T) {
	t.Parallel()
	_, src := pdfRepo(t)
	env := newEnvAt(t, t.TempDir(), &bytes.Buffer{})
	opts := workflow.PushOptions{Source: src, Destination: layout(t) + ":1.0.0"}
	opts.Build.Limits = layers.Limits{MaxFiles: 1}
	_, err := workflow.Push(context.Background(), env, opts)
	if err == nil || !strings.Contains(err.Error(), "more than 1 files") {
		t.Errorf("push of a git source of 3 entries with a limit of 1: %v; want the limit refused", err)
	}
}

// pdfRepo serves a repository of one pdf skill tagged v1.0.0 and returns
// its server and the git source naming that tag.
func pdfRepo(t *testing.T) (*gittest.Server, string) {
	t.Helper()
	gittest.RequireGit(t)
	srv := gittest.NewServer(t)
	repo := srv.NewRepo(t, "skills")
	repo.Write(map[string]string{"skills/pdf/SKILL.md": "---\nname: pdf\ndescription: Read PDFs. Use for PDFs.\n---\n\nRead PDFs.\n"})
	repo.Commit("pdf")
	repo.Tag("v1.0.0", "")
	return srv, "git+" + repo.URL + "#v1.0.0"
}

// A copy of a git source under --verify warn says that it was not
// verified, with the warning of any package that does not verify: a git
// repository carries no signature, and the copy was made without a word
// of it.
func TestCopyGitSourceUnderWarnSaysNothingWasVerified(t *testing.T) {
	t.Parallel()
	_, src := pdfRepo(t)
	var warnings bytes.Buffer
	env := newEnvAt(t, t.TempDir(), &warnings)
	_, pub := newSigner(t, t.TempDir(), "warned")
	opts := workflow.CopyOptions{Source: src, Destination: layout(t) + ":1.0.0", Verify: workflow.Verification{Mode: "warn", Keys: []string{pub}}}
	if _, err := workflow.Copy(context.Background(), env, opts); err != nil {
		t.Fatal(err)
	}
	if got := warnings.String(); !strings.Contains(got, "does not verify") || !strings.Contains(got, "no signature") {
		t.Errorf("warnings %q: want one that the git repository copied was not verified", got)
	}
}
