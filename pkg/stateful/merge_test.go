package stateful

import (
	"errors"
	"strings"
	"testing"
)

const mergeBase = `---
version: 1.0.0
contributors: 1
lastUpdated: 2026-05-01
---

## What worked

- Ask for the alert rule first. — @mira, 2026-05-01

## Open questions

- Near-misses: full template? — @jonas, 2026-04-20
`

func TestMergeMemoryKeepsLocalAndTakesUpstream(t *testing.T) {
	t.Parallel()
	local := mergeBase + "- Short form is enough for near-misses under 5 minutes. — @ana, 2026-06-03\n" +
		"\n## Tooling\n\n- grep the deploy log before the pager. — @ana, 2026-06-04\n"
	upstream := strings.Replace(mergeBase, "version: 1.0.0", "version: 1.1.0", 1)
	upstream = strings.Replace(upstream, "lastUpdated: 2026-05-01", "lastUpdated: 2026-05-20", 1)
	upstream = strings.Replace(upstream, "\n## Open questions",
		"- Put the impact sentence first. — @jonas, 2026-05-20\n\n## Open questions", 1)

	got, err := MergeMemory(MemorySide{Name: "local/MEMORY.md", Data: []byte(local)}, MemorySide{Name: "new/MEMORY.md", Data: []byte(upstream)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(upstream, "— @jonas, 2026-04-20\n",
		"— @jonas, 2026-04-20\n\n- Short form is enough for near-misses under 5 minutes. — @ana, 2026-06-03\n", 1) +
		"\n## Tooling\n\n- grep the deploy log before the pager. — @ana, 2026-06-04\n"
	if string(got.Text) != want {
		t.Errorf("merged:\n%s\nwant:\n%s", got.Text, want)
	}
	if got.LastUpdated != "2026-06-04" {
		t.Errorf("LastUpdated = %q, want the newest entry's date 2026-06-04", got.LastUpdated)
	}
	if len(got.Kept) != 2 || got.Kept[0].Signer != "@ana" {
		t.Errorf("Kept = %+v, want the two entries of @ana", got.Kept)
	}
	// Every entry of both sides is in the result, once.
	m := ParseMemory(got.Text)
	if n := len(m.Entries()); n != 5 {
		t.Errorf("merged file has %d entries, want 5", n)
	}
}

func TestMergeMemoryUnchangedLocalIsUpstream(t *testing.T) {
	t.Parallel()
	upstream := strings.Replace(mergeBase, "## Open questions", "## Open questions\n\n- New one. — @jonas, 2026-05-21", 1)
	got, err := MergeMemory(MemorySide{Name: "a", Data: []byte(mergeBase)}, MemorySide{Name: "b", Data: []byte(upstream)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Text) != upstream || len(got.Kept) != 0 {
		t.Errorf("merged = %q (kept %d), want the upstream file unchanged", got.Text, len(got.Kept))
	}
	if got.LastUpdated != "2026-05-21" {
		t.Errorf("LastUpdated = %q", got.LastUpdated)
	}
}

func TestMergeMemoryConflict(t *testing.T) {
	t.Parallel()
	// The same entry, by its section, signer and date, says different
	// things on each side.
	local := strings.Replace(mergeBase, "Ask for the alert rule first.", "Ask for the alert rule and its owner first.", 1)
	upstream := strings.Replace(mergeBase, "Ask for the alert rule first.", "Ask for the exact alert expression first.", 1)
	_, err := MergeMemory(MemorySide{Name: "skills/x/MEMORY.md", Data: []byte(local)}, MemorySide{Name: "pkg:x/MEMORY.md", Data: []byte(upstream)}, nil)
	var me *MergeError
	if !errors.As(err, &me) {
		t.Fatalf("err = %v, want a *MergeError", err)
	}
	if me.File != "skills/x/MEMORY.md" || me.Line != 9 {
		t.Errorf("conflict at %s:%d, want skills/x/MEMORY.md:9", me.File, me.Line)
	}
	for _, want := range []string{"skills/x/MEMORY.md:9", "@mira", "2026-05-01", "line 9 of pkg:x/MEMORY.md", "What worked"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q does not name %q", err, want)
		}
	}
}

func TestMergeMemoryBrokenInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		local, remote string
		file          string
		line          int
	}{
		{"local without frontmatter", "## What worked\n- x — @a, 2026-01-01\n", mergeBase, "local", 1},
		{"upstream frontmatter unterminated", mergeBase, "---\nversion: 1.0.0\n", "upstream", 1},
		{"local bad YAML", "---\nversion: 1.0.0\ncontributors: [1\nlastUpdated: 2026-01-01\n---\n", mergeBase, "local", 3},
		{"local section twice", mergeBase + "\n## What worked\n\n- y — @a, 2026-07-01\n", mergeBase, "local", 15},
		{"upstream empty heading", mergeBase, mergeBase + "\n##\n\n- y — @a, 2026-07-01\n", "upstream", 15},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := MergeMemory(MemorySide{Name: "local", Data: []byte(tt.local)}, MemorySide{Name: "upstream", Data: []byte(tt.remote)}, nil)
			var me *MergeError
			if !errors.As(err, &me) {
				t.Fatalf("err = %v, want a *MergeError", err)
			}
			if me.Upstream != (tt.file == "upstream") {
				t.Errorf("Upstream = %v for an error in %s", me.Upstream, tt.file)
			}
			if me.File != tt.file || me.Line != tt.line {
				t.Errorf("error at %s:%d, want %s:%d (%v)", me.File, me.Line, tt.file, tt.line, err)
			}
		})
	}
}

func TestMergeMemoryCases(t *testing.T) {
	t.Parallel()
	fm := "---\nversion: 1.0.0\ncontributors: 1\nlastUpdated: 2026-05-01\n---\n"
	// base is the MEMORY.md the install wrote, as the package brought it:
	// its fields are the base of the frontmatter's three-way merge; none,
	// a record of an older stax.
	base := "---\nversion: 1.0.0\ncontributors: 2\nowner: ana\nlastUpdated: 2026-05-01\n---\n\n## What worked\n"
	tests := []struct {
		name, base, local, upstream, want string
		conflictLine                      int
		// message is a part of the conflict's message, when it is one.
		message string
	}{
		{name: "two entries of one signer and day, one on each side",
			local:    fm + "\n## What worked\n\n- A. — @ana, 2026-05-01\n\n- B. — @ana, 2026-05-01\n",
			upstream: fm + "\n## What worked\n\n- A. — @ana, 2026-05-01\n",
			want:     fm + "\n## What worked\n\n- A. — @ana, 2026-05-01\n\n- B. — @ana, 2026-05-01\n"},
		{name: "a local entry without a final line break goes before the next section",
			local:    fm + "\n## What worked\n\n- A. — @mira, 2026-05-01\n- Mine. — @ana, 2026-06-01",
			upstream: fm + "\n## What worked\n\n- A. — @mira, 2026-05-01\n\n## Edge cases\n\n- C. — @mira, 2026-05-02\n",
			want:     fm + "\n## What worked\n\n- A. — @mira, 2026-05-01\n\n- Mine. — @ana, 2026-06-01\n\n## Edge cases\n\n- C. — @mira, 2026-05-02\n"},
		{name: "an undated entry of the user's is kept",
			local:    fm + "\n## Open questions\n\n- Why?\n",
			upstream: fm + "\n## Open questions\n",
			want:     fm + "\n## Open questions\n\n- Why?\n"},
		{name: "line endings and trailing spaces do not make an entry the user's",
			local:    strings.ReplaceAll(fm+"\n## What worked\n\n- A.  \n  — @mira, 2026-05-01\n", "\n", "\r\n"),
			upstream: fm + "\n## What worked\n\n- A.\n  — @mira, 2026-05-01\n",
			want:     fm + "\n## What worked\n\n- A.\n  — @mira, 2026-05-01\n"},
		{name: "a preamble of the user's is a conflict",
			local:        fm + "\nNotes of mine.\n\n## What worked\n",
			upstream:     fm + "\n## What worked\n",
			conflictLine: 7},
		{name: "a frontmatter field the user added is kept, at the end of the new frontmatter",
			local:    "---\nversion: 1.0.0\nowner: \"@ana\" # mine\ncontributors: 1\ntags:\n  - ops\n  - oncall\nlastUpdated: 2026-05-01\n---\n\n## What worked\n",
			upstream: "---\nversion: 1.1.0\ncontributors: 1\nlastUpdated: 2026-05-20\n---\n\n## What worked\n",
			want:     "---\nversion: 1.1.0\ncontributors: 1\nlastUpdated: 2026-05-20\nowner: \"@ana\" # mine\ntags:\n  - ops\n  - oncall\n---\n\n## What worked\n"},
		{name: "a frontmatter field both sides have with other values is a conflict",
			local:        "---\nversion: 1.0.0\ncontributors: 7\nlastUpdated: 2026-05-01\n---\n\n## What worked\n",
			upstream:     "---\nversion: 1.1.0\ncontributors: 2\nlastUpdated: 2026-05-20\n---\n\n## What worked\n",
			conflictLine: 3},
		{name: "a field the same on both sides, written otherwise, is the new version's",
			local:    "---\nversion: 1.0.0\ncontributors: 0x2\nowner: ana\nlastUpdated: 2026-05-01\n---\n",
			upstream: "---\nversion: 1.1.0\ncontributors: 2\nowner: \"ana\"\nlastUpdated: 2026-05-20\n---\n",
			want:     "---\nversion: 1.1.0\ncontributors: 2\nowner: \"ana\"\nlastUpdated: 2026-05-20\n---\n"},
		{name: "a field of the user's on the line of another cannot be cut out",
			local:        "---\n{version: 1.0.0, contributors: 1, lastUpdated: 2026-05-01, owner: ana}\n---\n",
			upstream:     fm,
			conflictLine: 2},
		{name: "a field the user left as installed takes the new version's value",
			base:     base,
			local:    base + "\n- Mine. — @ana, 2026-06-03\n",
			upstream: "---\nversion: 1.1.0\ncontributors: 3\nowner: ana\nlastUpdated: 2026-05-20\n---\n\n## What worked\n",
			want:     "---\nversion: 1.1.0\ncontributors: 3\nowner: ana\nlastUpdated: 2026-05-20\n---\n\n## What worked\n\n- Mine. — @ana, 2026-06-03\n"},
		{name: "a field only the user changed keeps the user's value, in its place",
			base:     base,
			local:    "---\nversion: 1.0.0\ncontributors: 7 # counted by hand\nowner: ana\nlastUpdated: 2026-05-01\n---\n\n## What worked\n",
			upstream: "---\nversion: 1.1.0\ncontributors: 2\nowner: ana\nlastUpdated: 2026-05-20\n---\n\n## What worked\n\n- New. — @jonas, 2026-05-20\n",
			want:     "---\nversion: 1.1.0\ncontributors: 7 # counted by hand\nowner: ana\nlastUpdated: 2026-05-20\n---\n\n## What worked\n\n- New. — @jonas, 2026-05-20\n"},
		{name: "a field the user changed to a list replaces the new version's lines",
			base:     base,
			local:    "---\nversion: 1.0.0\ncontributors: 2\nowner:\n  - ana\n  - ben\nlastUpdated: 2026-05-01\n---\n\n## What worked\n",
			upstream: "---\nversion: 1.1.0\ncontributors: 3\nowner: ana\nlastUpdated: 2026-05-20\n---\n\n## What worked\n",
			want:     "---\nversion: 1.1.0\ncontributors: 3\nowner:\n  - ana\n  - ben\nlastUpdated: 2026-05-20\n---\n\n## What worked\n"},
		{name: "a field both sides changed to other values is a conflict",
			base:         base,
			local:        "---\nversion: 1.0.0\ncontributors: 7\nowner: ana\nlastUpdated: 2026-05-01\n---\n\n## What worked\n",
			upstream:     "---\nversion: 1.1.0\ncontributors: 3\nowner: ana\nlastUpdated: 2026-05-20\n---\n\n## What worked\n",
			conflictLine: 3, message: `contributors is "7" here and "3" in upstream: both your copy and the new version changed it`},
		{name: "a field both sides changed to the same value is the new version's",
			base:     base,
			local:    "---\nversion: 1.0.0\ncontributors: 0x3\nowner: ana\nlastUpdated: 2026-05-01\n---\n",
			upstream: "---\nversion: 1.1.0\ncontributors: 3\nowner: ana\nlastUpdated: 2026-05-20\n---\n",
			want:     "---\nversion: 1.1.0\ncontributors: 3\nowner: ana\nlastUpdated: 2026-05-20\n---\n"},
		{name: "a field both sides added with other values is a conflict",
			base:         base,
			local:        "---\nversion: 1.0.0\ncontributors: 2\nowner: ana\nteam: ops\nlastUpdated: 2026-05-01\n---\n",
			upstream:     "---\nversion: 1.1.0\ncontributors: 2\nowner: ana\nteam: sre\nlastUpdated: 2026-05-20\n---\n",
			conflictLine: 5, message: `team is "ops" here and "sre"`},
		{name: "a field only the user has is kept, a base known",
			base:     base,
			local:    "---\nversion: 1.0.0\ncontributors: 2\nowner: ana\nteam: ops\nlastUpdated: 2026-05-01\n---\n",
			upstream: "---\nversion: 1.1.0\ncontributors: 3\nowner: ana\nlastUpdated: 2026-05-20\n---\n",
			want:     "---\nversion: 1.1.0\ncontributors: 3\nowner: ana\nlastUpdated: 2026-05-20\nteam: ops\n---\n"},
		{name: "a field the new version removed and the user left as installed is dropped",
			base:     base,
			local:    base,
			upstream: "---\nversion: 1.1.0\ncontributors: 2\nlastUpdated: 2026-05-20\n---\n\n## What worked\n",
			want:     "---\nversion: 1.1.0\ncontributors: 2\nlastUpdated: 2026-05-20\n---\n\n## What worked\n"},
		{name: "a field the new version removed and the user changed is kept",
			base:     base,
			local:    "---\nversion: 1.0.0\ncontributors: 2\nowner: ben\nlastUpdated: 2026-05-01\n---\n",
			upstream: "---\nversion: 1.1.0\ncontributors: 2\nlastUpdated: 2026-05-20\n---\n",
			want:     "---\nversion: 1.1.0\ncontributors: 2\nlastUpdated: 2026-05-20\nowner: ben\n---\n"},
		{name: "without a base, a field the sides hold with other values is a conflict that says how to settle it",
			local:        base,
			upstream:     "---\nversion: 1.1.0\ncontributors: 3\nowner: ana\nlastUpdated: 2026-05-20\n---\n",
			conflictLine: 3, message: "written by an older stax, does not hold the frontmatter it installed; make yours the same as the new one (take its value), or install with --force"},
		{name: "a field the user changed cannot replace one of a flow mapping",
			base:         base,
			local:        "---\nversion: 1.0.0\ncontributors: 7\nowner: ana\nlastUpdated: 2026-05-01\n---\n",
			upstream:     "---\n{version: 1.1.0, contributors: 2, owner: ana, lastUpdated: 2026-05-20}\n---\n",
			conflictLine: -2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := MergeMemory(MemorySide{Name: "local", Data: []byte(tt.local)}, MemorySide{Name: "upstream", Data: []byte(tt.upstream)}, FieldDigests([]byte(tt.base)))
			if tt.conflictLine != 0 {
				// A negative line is one of the upstream file.
				var me *MergeError
				if !errors.As(err, &me) || me.Line != max(tt.conflictLine, -tt.conflictLine) || me.Upstream != (tt.conflictLine < 0) {
					t.Fatalf("err = %v, want a conflict on line %d (negative: of the upstream file)", err, tt.conflictLine)
				}
				if !strings.Contains(me.Message, tt.message) {
					t.Errorf("the conflict says %q, want %q in it", me.Message, tt.message)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got.Text) != tt.want {
				t.Errorf("merged:\n%q\nwant:\n%q", got.Text, tt.want)
			}
		})
	}
}

// A field's digest is of its value, as sameValue compares values: written
// otherwise, a value has the same; another type, or another value, has
// another; and every kind of value a frontmatter holds has one.
func TestFieldDigests(t *testing.T) {
	t.Parallel()
	a := FieldDigests([]byte("---\nversion: 1.0.0\nn: 0x3\ns: \"3\"\nsince: 2026-01-01\nm: {a: 1, 2: [x, ~, true, 1.5]}\n---\n"))
	b := FieldDigests([]byte("---\nversion: 2.0.0\nlastUpdated: 2026-05-01\nn: 3\ns: '3'\nsince: 2026-01-01\nm:\n  2: [x, null, true, 1.50]\n  a: 1\n---\n"))
	if len(a) != 4 || a["version"] != "" {
		t.Fatalf("digests %v, want one of n, s, since and m, none of version", a)
	}
	for name, d := range a {
		if b[name] != d {
			t.Errorf("%s: %s and %s, want the same digest for the same value", name, d, b[name])
		}
	}
	if a["n"] == a["s"] {
		t.Error("3 and \"3\" have the same digest")
	}
	if FieldDigests([]byte("no frontmatter\n")) != nil {
		t.Error("a file without frontmatter has a base")
	}
}
