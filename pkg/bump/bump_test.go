package bump

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stax-dev/stax/pkg/errdefs"
)

func TestSkillEditsOnlyTheVersion(t *testing.T) {
	const memBody = "\n## What worked\n\n- Keep it. — @ann, 2026-05-01\n"
	tests := []struct {
		name      string
		skill     string
		memory    string // "" for none
		part      Part
		wantSkill string
		wantMem   string
		field     string
	}{
		{
			name:      "plain",
			skill:     "---\nname: x\ndescription: d\nversion: 1.3.2\n---\nBody $ARGUMENTS\n",
			memory:    "---\nversion: 1.3.2\ncontributors: 4\nlastUpdated: 2026-10-28\n---\n" + memBody,
			part:      Patch,
			wantSkill: "---\nname: x\ndescription: d\nversion: 1.3.3\n---\nBody $ARGUMENTS\n",
			wantMem:   "---\nversion: 1.3.3\ncontributors: 4\nlastUpdated: 2026-11-23\n---\n" + memBody,
			field:     "version",
		},
		{
			name:      "quoted, commented, CRLF",
			skill:     "---\r\nname: x   # the name\r\nversion:   \"1.3.2\"   # keep quoted\r\ndescription: d\r\n---\r\nBody\r\n",
			memory:    "---\r\n# provenance\r\nversion: '1.3.2'\r\ncontributors: 4\r\nlastUpdated: 2026-10-28\r\n---\r\n",
			part:      Minor,
			wantSkill: "---\r\nname: x   # the name\r\nversion:   \"1.4.0\"   # keep quoted\r\ndescription: d\r\n---\r\nBody\r\n",
			wantMem:   "---\r\n# provenance\r\nversion: '1.4.0'\r\ncontributors: 4\r\nlastUpdated: 2026-11-23\r\n---\r\n",
			field:     "version",
		},
		{
			name:      "metadata.version",
			skill:     "---\nname: x\ndescription: d\nmetadata:\n  author: me\n  version: \"0.3.0\"\n---\nBody\n",
			part:      Major,
			wantSkill: "---\nname: x\ndescription: d\nmetadata:\n  author: me\n  version: \"1.0.0\"\n---\nBody\n",
			field:     "metadata.version",
		},
		{
			name:      "flow mapping after multibyte text",
			skill:     "---\nname: x\ndescription: \"café 日本\"\nmetadata: {owner: \"é\", version: 2.0.9}\n---\n",
			part:      Patch,
			wantSkill: "---\nname: x\ndescription: \"café 日本\"\nmetadata: {owner: \"é\", version: 2.0.10}\n---\n",
			field:     "metadata.version",
		},
		{
			name:      "out-of-sync memory is brought in line",
			skill:     "---\nname: x\ndescription: d\nversion: 2.0.0\n---\n",
			memory:    "---\nversion: 1.9.0\ncontributors: 1\nlastUpdated: 2026-01-01\n---\n",
			part:      Patch,
			wantSkill: "---\nname: x\ndescription: d\nversion: 2.0.1\n---\n",
			wantMem:   "---\nversion: 2.0.1\ncontributors: 1\nlastUpdated: 2026-11-23\n---\n",
			field:     "version",
		},
		{
			name:      "memory without lastUpdated gets one after its version",
			skill:     "---\nname: x\ndescription: d\nversion: 1.0.0\n---\n",
			memory:    "---\r\nversion: \"1.0.0\"\r\ncontributors: 1\r\n---\r\n" + memBody,
			part:      Patch,
			wantSkill: "---\nname: x\ndescription: d\nversion: 1.0.1\n---\n",
			wantMem:   "---\r\nversion: \"1.0.1\"\r\nlastUpdated: 2026-11-23\r\ncontributors: 1\r\n---\r\n" + memBody,
			field:     "version",
		},
		{
			name:      "no trailing newline",
			skill:     "---\nname: x\ndescription: d\nversion: 1.0.0\n---",
			part:      Patch,
			wantSkill: "---\nname: x\ndescription: d\nversion: 1.0.1\n---",
			field:     "version",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, filepath.Join(dir, "SKILL.md"), tt.skill, 0o644)
			if tt.memory != "" {
				write(t, filepath.Join(dir, "MEMORY.md"), tt.memory, 0o600)
			}
			// Late on the 22nd in UTC-5 is the 23rd in UTC.
			today := time.Date(2026, 11, 22, 22, 30, 0, 0, time.FixedZone("EST", -5*3600))
			res, err := Skill(Options{Dir: dir, Part: tt.part, Today: today})
			if err != nil {
				t.Fatal(err)
			}
			if got := read(t, filepath.Join(dir, "SKILL.md")); got != tt.wantSkill {
				t.Errorf("SKILL.md =\n%q\nwant\n%q", got, tt.wantSkill)
			}
			wantChanges := 1
			if tt.memory != "" {
				wantChanges = 3 // version, memory version, memory lastUpdated
				if got := read(t, filepath.Join(dir, "MEMORY.md")); got != tt.wantMem {
					t.Errorf("MEMORY.md =\n%q\nwant\n%q", got, tt.wantMem)
				}
				if info, err := os.Stat(filepath.Join(dir, "MEMORY.md")); err != nil || info.Mode().Perm() != 0o600 {
					t.Errorf("MEMORY.md mode changed: %v %v", info.Mode(), err)
				}
			}
			if len(res.Changes) != wantChanges || res.Changes[0].Field != tt.field || res.Changes[0].To != res.To {
				t.Errorf("result = %+v", res)
			}
			leftovers, _ := filepath.Glob(filepath.Join(dir, ".stax-bump-*"))
			if len(leftovers) > 0 {
				t.Errorf("temporary files left: %v", leftovers)
			}
		})
	}
}

func TestSkillRefuses(t *testing.T) {
	tests := []struct {
		name   string
		skill  string
		memory string
		err    string
	}{
		{name: "no version", skill: "---\nname: x\ndescription: d\n---\n", err: `add one to its frontmatter, e.g. a line "version: 0.1.0"`},
		{name: "not semver", skill: "---\nname: x\ndescription: d\nversion: \"1.0\"\n---\n", err: "not MAJOR.MINOR.PATCH"},
		{name: "block scalar", skill: "---\nname: x\ndescription: d\nversion: >-\n  1.0.0\n---\n", err: "block or folded"},
		{name: "escaped", skill: "---\nname: x\ndescription: d\nversion: \"1.0.\\x30\"\n---\n", err: "edit it by hand"},
		{name: "anchored", skill: "---\nname: x\ndescription: d\nversion: &v 1.0.0\n---\n", err: "edit it by hand"},
		{name: "memory without frontmatter", skill: "---\nname: x\ndescription: d\nversion: 1.0.0\n---\n",
			memory: "## What worked\n", err: "MEMORY.md must start with a frontmatter block holding version: 1.0.1"},
		{name: "memory without version", skill: "---\nname: x\ndescription: d\nversion: 1.0.0\n---\n",
			memory: "---\ncontributors: 1\n---\n", err: "the frontmatter has no version"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, filepath.Join(dir, "SKILL.md"), tt.skill, 0o644)
			if tt.memory != "" {
				write(t, filepath.Join(dir, "MEMORY.md"), tt.memory, 0o644)
			}
			_, err := Skill(Options{Dir: dir})
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("error = %v, want %q", err, tt.err)
			}
			if errdefs.Of(err) != errdefs.InvalidArgument {
				t.Errorf("class %v, want %v", errdefs.Of(err), errdefs.InvalidArgument)
			}
			// Nothing was written.
			if got := read(t, filepath.Join(dir, "SKILL.md")); got != tt.skill {
				t.Errorf("SKILL.md changed to %q", got)
			}
		})
	}
}

func TestSkillDryRun(t *testing.T) {
	dir := t.TempDir()
	const in = "---\nname: x\ndescription: d\nversion: 1.0.0\n---\n"
	write(t, filepath.Join(dir, "SKILL.md"), in, 0o644)
	res, err := Skill(Options{Dir: dir, DryRun: true})
	if err != nil || res.To != "1.0.1" {
		t.Fatalf("res %+v, err %v", res, err)
	}
	if read(t, filepath.Join(dir, "SKILL.md")) != in {
		t.Error("dry run wrote")
	}
}

func TestSkillMissingDirectory(t *testing.T) {
	_, err := Skill(Options{Dir: filepath.Join(t.TempDir(), "nope")})
	if errdefs.Of(err) != errdefs.Local {
		t.Errorf("error %v, class %v", err, errdefs.Of(err))
	}
}

func write(t *testing.T, name, data string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(name, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(name, mode); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
