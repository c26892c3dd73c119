package workflow_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/pkg/agent"
	"github.com/stax-dev/stax/pkg/discover"
	"github.com/stax-dev/stax/pkg/install"
	"github.com/stax-dev/stax/pkg/workflow"
)

// List names, for each skill stax installed, the package, version and
// digest it came from, and nothing for a skill of the user's.
func TestListNamesWhereInstalledSkillsCameFrom(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root, proj, home := t.TempDir(), t.TempDir(), t.TempDir()
	org := writePackage(t, root, "org", "review")
	res, err := workflow.Install(ctx, homeEnv(t, t.TempDir()), workflow.InstallOptions{Where: claudeCode(proj), Sources: []string{org}})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(proj, ".claude", "skills", "mine", "SKILL.md"), "---\nname: mine\ndescription: Mine, for tests.\n---\nMine.\n")
	rt, err := agent.Find("claude-code")
	if err != nil {
		t.Fatal(err)
	}

	l, err := workflow.List(discover.Options{Runtime: rt, Project: proj, Home: home}, func(string) string { return t.TempDir() })
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*discover.Origin{}
	for _, s := range l.Skills {
		got[s.Key] = s.Installed
	}
	want := discover.Origin{Package: res.Packages[0].Reference, Version: "1.0.0", Digest: res.Packages[0].Digest}
	if o := got["review"]; o == nil || *o != want {
		t.Errorf("review came from %+v, want %+v", o, want)
	}
	if o, ok := got["mine"]; !ok || o != nil {
		t.Errorf("mine: listed %v, from %+v; want listed as local", ok, o)
	}
	if len(l.Warnings) != 0 {
		t.Errorf("warnings: %v", l.Warnings)
	}
}

// A record that cannot be read is a warning of the listing, which still
// lists the folder's skills.
func TestListWarnsOfAnUnreadableRecord(t *testing.T) {
	t.Parallel()
	proj := t.TempDir()
	folder := filepath.Join(proj, ".claude", "skills")
	writeFile(t, filepath.Join(folder, "mine", "SKILL.md"), "---\nname: mine\ndescription: Mine, for tests.\n---\nMine.\n")
	if err := os.WriteFile(filepath.Join(folder, install.RecordFile), []byte(`{"skills": {"../up": {}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	rt, err := agent.Find("claude-code")
	if err != nil {
		t.Fatal(err)
	}
	l, err := workflow.List(discover.Options{Runtime: rt, Project: proj, Home: t.TempDir()}, func(string) string { return t.TempDir() })
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Skills) != 1 || l.Skills[0].Installed != nil {
		t.Errorf("skills %+v: want mine, local", l.Skills)
	}
	if len(l.Warnings) != 1 || !strings.Contains(l.Warnings[0], folder) {
		t.Errorf("warnings %q: want one naming %s", l.Warnings, folder)
	}
}
