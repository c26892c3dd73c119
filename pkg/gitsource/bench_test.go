package gitsource

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stax-dev/stax/internal/gittest"
)

// BenchmarkOneSkillOfAMonorepo installs one skill of a 500-skill
// repository into an empty cache, against git clone --depth 1 of the
// whole repository, and reports what each asked of the server.
func BenchmarkOneSkillOfAMonorepo(b *testing.B) {
	srv := gittest.NewServer(b)
	repo := srv.NewRepo(b, "mono")
	repo.Skills("skills", 500, 8<<10, 7)
	commit := repo.Commit("500 skills")
	repo.Tag("v1.0.0", "")
	r, err := Parse("git+" + repo.URL + "//skills/skill-0250#v1.0.0")
	if err != nil {
		b.Fatal(err)
	}
	env := append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1")

	b.Run("gitsource", func(b *testing.B) {
		srv.Reset()
		for b.Loop() {
			c := NewCache(b.TempDir())
			c.Env = env
			refs, err := c.ListRefs(context.Background(), r)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := refs.Resolve(r.Ref, nil); err != nil {
				b.Fatal(err)
			}
			if _, err := c.Materialize(context.Background(), r, commit, filepath.Join(b.TempDir(), "out")); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(srv.Requests())/float64(b.N), "requests/op")
		b.ReportMetric(float64(srv.Bytes())/float64(b.N), "served-bytes/op")
	})
	b.Run("clone-depth-1", func(b *testing.B) {
		srv.Reset()
		for b.Loop() {
			cmd := exec.Command("git", "clone", "--quiet", "--depth=1", "--branch=v1.0.0", repo.URL, filepath.Join(b.TempDir(), "clone"))
			cmd.Env = env
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%v: %s", err, out)
			}
		}
		b.ReportMetric(float64(srv.Requests())/float64(b.N), "requests/op")
		b.ReportMetric(float64(srv.Bytes())/float64(b.N), "served-bytes/op")
	})
}

// BenchmarkWholeRepository installs the skills/ of a 17-skill, 12 MB
// repository into an empty cache, against git clone --depth 1 of it (the
// copy of skills/ that would follow left out).
func BenchmarkWholeRepository(b *testing.B) {
	srv := gittest.NewServer(b)
	repo := srv.NewRepo(b, "skills")
	repo.Skills("skills", 17, 700<<10, 11)
	repo.Write(map[string]string{"README.md": "skills\n"})
	commit := repo.Commit("17 skills")
	repo.Tag("v1.0.0", "")
	r, err := Parse("git+" + repo.URL + "//skills#v1.0.0")
	if err != nil {
		b.Fatal(err)
	}
	env := append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1")
	b.Run("gitsource", func(b *testing.B) {
		srv.Reset()
		for b.Loop() {
			c := NewCache(b.TempDir())
			c.Env = env
			refs, err := c.ListRefs(context.Background(), r)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := refs.Resolve(r.Ref, nil); err != nil {
				b.Fatal(err)
			}
			if _, err := c.Materialize(context.Background(), r, commit, filepath.Join(b.TempDir(), "out")); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(srv.Requests())/float64(b.N), "requests/op")
		b.ReportMetric(float64(srv.Bytes())/float64(b.N), "served-bytes/op")
	})
	b.Run("clone-depth-1", func(b *testing.B) {
		srv.Reset()
		for b.Loop() {
			cmd := exec.Command("git", "clone", "--quiet", "--depth=1", "--branch=v1.0.0", repo.URL, filepath.Join(b.TempDir(), "clone"))
			cmd.Env = env
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%v: %s", err, out)
			}
		}
		b.ReportMetric(float64(srv.Requests())/float64(b.N), "requests/op")
		b.ReportMetric(float64(srv.Bytes())/float64(b.N), "served-bytes/op")
	})
}
