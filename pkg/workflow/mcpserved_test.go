package workflow

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/stax-dev/stax/pkg/agent"
	"github.com/stax-dev/stax/pkg/install"
	"github.com/stax-dev/stax/pkg/mcpserver"
)

// The record servedWork writes from the skills' parts is the bytes
// json.Marshal writes of the map of them, as the record was written
// before, keys sorted and escaped as it does; each skill written is
// indexed with the record index makes of it, and its SKILL.md not held
// twice.
func TestServedWorkRecordIsTheMapMarshalled(t *testing.T) {
	t.Parallel()
	rt, _ := agent.Lookup("claude-code")
	folder := agent.Location{Scope: agent.ScopeProject, Dir: t.TempDir()}
	index := func(in *install.InstalledSkill) *mcpserver.Installed {
		return &mcpserver.Installed{Package: in.Package, Files: recordedFiles(*in), Written: true}
	}
	w := newServedWork(rt, folder, t.TempDir(), index)
	skills := map[string]*install.InstalledSkill{}
	paths := []string{"zeta", "a<b>&c", "alpha", "broken", "Beta"}
	for i := range 2*servedBatch + 1 { // full batches and a part of one
		paths = append(paths, fmt.Sprintf("skill-%03d", i))
	}
	for i, path := range paths {
		in := &install.InstalledSkill{Package: "reg.example/p", PackageDigest: "sha256:aa", Digest: "sha256:bb",
			Files: map[string]string{"SKILL.md": fmt.Sprintf("644 sha256:%d", i)}, Stat: map[string]string{"SKILL.md": "10 20", "./": "0 1"},
			SkillFile: fmt.Appendf(nil, "---\nname: %s\ndescription: Skill %d.\n---\nBody.\n", path, i)}
		if path == "broken" {
			in.SkillFile = []byte("---\nname: broken\ndescription: a: b\n---\n")
		}
		skills[path] = in
		if err := w.add(path, in); err != nil {
			t.Fatal(err)
		}
	}
	got, err := w.wait()
	if err != nil {
		t.Fatal(err)
	}
	want, err := json.Marshal(skills)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("record =\n%s\nwant json.Marshal's\n%s", got, want)
	}
	for path, in := range skills {
		if in.SkillFile != nil {
			t.Errorf("%s: SkillFile kept once parsed", path)
		}
		if x := w.indexed[path]; x.written == nil || !reflect.DeepEqual(x.rec, index(in)) {
			t.Errorf("%s indexed as %+v, want with its record", path, x)
		}
	}
}
