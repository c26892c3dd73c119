package workflow_test

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/stax-dev/stax/pkg/agent"
	"github.com/stax-dev/stax/pkg/discover"
	"github.com/stax-dev/stax/pkg/mcpserver"
	"github.com/stax-dev/stax/pkg/workflow"
)

// serveMCP runs ServeMCP for proj on pipes and returns a client of the
// skills extension.
func serveMCP(t *testing.T, env *workflow.Env, proj, home string) *mcp.ClientSession {
	t.Helper()
	rt, err := agent.Find("claude-code")
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- workflow.ServeMCP(ctx, env, workflow.ServeMCPOptions{
			Discover: discover.Options{Runtime: rt, Project: proj, Home: home}, Stdin: inR, Stdout: outW,
		})
		outW.Close()
	}()
	c := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, nil)
	if err := mcp.AddSendingCustomMethod[*mcpserver.SkillsListParams, *mcpserver.SkillsListResult](c, mcpserver.MethodSkillsList); err != nil {
		t.Fatal(err)
	}
	cs, err := c.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		cancel()
		<-done
	})
	return cs
}

func provenanceOf(t *testing.T, cs *mcp.ClientSession) map[string]map[string]any {
	t.Helper()
	res, err := mcp.CallCustomMethod[*mcpserver.SkillsListParams, *mcpserver.SkillsListResult](context.Background(), cs, mcpserver.MethodSkillsList, &mcpserver.SkillsListParams{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for _, e := range res.Skills {
		var p map[string]any
		if data, err := json.Marshal(e.Meta[mcpserver.ProvenanceMetaKey]); err == nil {
			_ = json.Unmarshal(data, &p)
		}
		out[e.URI] = p
	}
	return out
}

// stax mcp names, in each skills/list entry, the package a skill was
// installed from, as the install record says; a skill whose files
// drifted since is said to, and refused once the trust policy requires
// its package to verify.
func TestServeMCPProvenanceFromTheInstallRecord(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root, proj, home, staxHome := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	env := homeEnv(t, staxHome)
	org := writePackage(t, root, "org", "review")
	res, err := workflow.Install(ctx, env, workflow.InstallOptions{Where: claudeCode(proj), Sources: []string{org}})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(proj, ".claude", "skills", "mine", "SKILL.md"), "---\nname: mine\ndescription: Mine, for tests.\n---\nMine.\n")

	got := provenanceOf(t, serveMCP(t, env, proj, home))
	p := got["skill://review/SKILL.md"]
	if p == nil || p["package"] != res.Packages[0].Reference || p["digest"] != res.Packages[0].Digest || p["version"] != "1.0.0" || p["drift"] != nil {
		t.Errorf("provenance of review = %v, want %s %s 1.0.0 without drift", p, res.Packages[0].Reference, res.Packages[0].Digest)
	}
	if p, ok := got["skill://mine/SKILL.md"]; !ok || p != nil {
		t.Errorf("mine: listed %v with provenance %v, want listed without", ok, p)
	}

	writeFile(t, filepath.Join(proj, ".claude", "skills", "review", "notes.md"), "added by hand\n")
	p = provenanceOf(t, serveMCP(t, env, proj, home))["skill://review/SKILL.md"]
	if d, _ := p["drift"].(map[string]any); d == nil || len(d["added"].([]any)) != 1 {
		t.Errorf("provenance of the drifted review = %v, want notes.md added", p)
	}

	if err := os.WriteFile(filepath.Join(staxHome, "trust.yaml"), []byte("mode: require\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got = provenanceOf(t, serveMCP(t, env, proj, home))
	if _, ok := got["skill://review/SKILL.md"]; ok || len(got) != 1 {
		t.Errorf("under require, skills/list gave %v; want mine alone", strings.Join(keys(got), ", "))
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
