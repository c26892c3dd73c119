package validate

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// A report keeps what its callers use of each skill (summary, the lines
// later checks point at), not the parsed SKILL.md: holding every parsed
// file made validating a library cost memory in the number of skills.
func TestReportKeepsNoSkillText(t *testing.T) {
	root := t.TempDir()
	const skills = 200
	body := strings.Repeat("Follow the steps of this skill with care.\n", 500) // ~21 KB
	for i := range skills {
		name := fmt.Sprintf("skill-%03d", i)
		md := "---\nname: " + name + "\ndescription: Skill " + name + " for the memory test. Use when testing.\n---\n" + body
		if err := os.MkdirAll(filepath.Join(root, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name, "SKILL.md"), []byte(md), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cost, _ := reportCost(t, root)
	perSkill := cost / skills
	// The scan's entries and the summary take well under 2 KiB a skill; a
	// kept SKILL.md alone is over 20 KiB.
	if perSkill > 4<<10 {
		t.Errorf("the report keeps %d bytes a skill, want under 4 KiB: is the SKILL.md text kept?", perSkill)
	}
}

// Nor does it keep the scan's entries: a library of many files per skill
// costs what a library of one file per skill costs. The packer scans the
// tree again, part by part, through the report's outline.
func TestReportKeepsNoPerFileData(t *testing.T) {
	root := t.TempDir()
	const skills, filesPerSkill = 200, 50
	for i := range skills {
		name := fmt.Sprintf("skill-%03d", i)
		md := "---\nname: " + name + "\ndescription: Skill " + name + " for the memory test. Use when testing.\n---\nRead the notes.\n"
		if err := os.MkdirAll(filepath.Join(root, name, "notes"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name, "SKILL.md"), []byte(md), 0o644); err != nil {
			t.Fatal(err)
		}
		for j := range filesPerSkill {
			if err := os.WriteFile(filepath.Join(root, name, "notes", fmt.Sprintf("a-note-with-a-long-name-%02d.md", j)), []byte("note\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	cost, r := reportCost(t, root)
	if len(r.Warnings) > 0 {
		t.Fatalf("warnings: %v", r.Warnings)
	}
	perSkill := cost / skills
	// The summary of a skill takes a few hundred bytes; 50 entries of the
	// scan, over 6 KiB (the slack is for what other tests allocate meanwhile).
	if perSkill > 2<<10 {
		t.Errorf("the report keeps %d bytes a skill of %d files, want under 2 KiB: are the scan's entries kept?", perSkill, filesPerSkill)
	}
}

// reportCost is the heap the report of root takes; root must be valid.
func reportCost(t *testing.T, root string) (int64, *Report) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r, err := Dir(Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if !r.Valid {
		t.Fatalf("errors: %v", r.Errors)
	}
	runtime.KeepAlive(r)
	return int64(after.HeapAlloc) - int64(before.HeapAlloc), r
}
