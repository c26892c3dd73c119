package stateful

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
)

const goodFrontmatter = "---\nversion: 1.2.0\ncontributors: 3\nlastUpdated: 2026-05-19\n---\n"

func TestMemoryFrontmatter(t *testing.T) {
	type problem struct {
		Kind ProblemKind
		Line int
	}
	tests := []struct {
		name string
		in   string
		want []problem
		// message is a substring the first problem's message must hold.
		message string
		fm      *MemoryFrontmatter
	}{
		{name: "valid", in: goodFrontmatter + "## What worked\n",
			fm: &MemoryFrontmatter{Version: "1.2.0", VersionLine: 2, Contributors: 3, ContributorsLine: 3, LastUpdated: "2026-05-19", LastUpdatedLine: 4}},
		{name: "quoted values", in: "---\nversion: \"1.2.0\"\ncontributors: 0\nlastUpdated: '2026-05-19'\n---\n",
			fm: &MemoryFrontmatter{Version: "1.2.0", VersionLine: 2, ContributorsLine: 3, LastUpdated: "2026-05-19", LastUpdatedLine: 4}},
		{name: "CRLF", in: strings.ReplaceAll(goodFrontmatter, "\n", "\r\n"),
			fm: &MemoryFrontmatter{Version: "1.2.0", VersionLine: 2, Contributors: 3, ContributorsLine: 3, LastUpdated: "2026-05-19", LastUpdatedLine: 4}},
		{name: "missing", in: "## What worked\n- x\n",
			want: []problem{{FrontmatterMissing, 1}}, message: "must start with a frontmatter block"},
		{name: "unterminated", in: "---\nversion: 1.0.0\n",
			want: []problem{{FrontmatterInvalid, 1}}, message: "never closed"},
		{name: "bad YAML", in: "---\nversion: 1.0.0\ncontributors: [1\nlastUpdated: 2026-01-01\n---\n",
			want: []problem{{FrontmatterInvalid, 3}}},
		{name: "not a mapping", in: "---\n- 1\n---\n",
			want: []problem{{FrontmatterInvalid, 2}}, message: "mapping"},
		{name: "empty block", in: "---\n---\n",
			want: []problem{{FieldMissing, 1}, {FieldMissing, 1}, {FieldMissing, 1}}, message: "has no version"},
		{name: "empty values", in: "---\nversion:\ncontributors:\nlastUpdated:\n---\n",
			want: []problem{{FieldMissing, 2}, {FieldMissing, 3}, {FieldMissing, 4}}, message: "version is empty"},
		{name: "duplicate key", in: "---\nversion: 1.0.0\nversion: 1.0.1\ncontributors: 1\nlastUpdated: 2026-01-01\n---\n",
			want: []problem{{FrontmatterInvalid, 3}}, message: "already defined on line 2"},
		{name: "version a list", in: "---\nversion: [1]\ncontributors: 1\nlastUpdated: 2026-01-01\n---\n",
			want: []problem{{FrontmatterInvalid, 2}}},
		{name: "negative contributors", in: "---\nversion: 1.0.0\ncontributors: -2\nlastUpdated: 2026-01-01\n---\n",
			want: []problem{{ContributorsInvalid, 3}}, message: "not -2"},
		{name: "fractional contributors", in: "---\nversion: 1.0.0\ncontributors: 1.5\nlastUpdated: 2026-01-01\n---\n",
			want: []problem{{ContributorsInvalid, 3}}},
		{name: "quoted contributors", in: "---\nversion: 1.0.0\ncontributors: \"12\"\nlastUpdated: 2026-01-01\n---\n",
			want: []problem{{ContributorsInvalid, 3}}, message: `not "12"`},
		{name: "contributors a word", in: "---\nversion: 1.0.0\ncontributors: twelve\nlastUpdated: 2026-01-01\n---\n",
			want: []problem{{ContributorsInvalid, 3}}},
		{name: "contributors a list", in: "---\nversion: 1.0.0\ncontributors: [a, b]\nlastUpdated: 2026-01-01\n---\n",
			want: []problem{{ContributorsInvalid, 3}}, message: "not a list"},
		{name: "date with time", in: "---\nversion: 1.0.0\ncontributors: 1\nlastUpdated: 2026-05-19T10:00:00Z\n---\n",
			want: []problem{{LastUpdatedInvalid, 4}}, message: "YYYY-MM-DD"},
		{name: "impossible date", in: "---\nversion: 1.0.0\ncontributors: 1\nlastUpdated: 2026-02-30\n---\n",
			want: []problem{{LastUpdatedInvalid, 4}}},
		{name: "US date", in: "---\nversion: 1.0.0\ncontributors: 1\nlastUpdated: 05/19/2026\n---\n",
			want: []problem{{LastUpdatedInvalid, 4}}},
		{name: "date a list", in: "---\nversion: 1.0.0\ncontributors: 1\nlastUpdated: [2026-05-19]\n---\n",
			want: []problem{{LastUpdatedInvalid, 4}}, message: "lastUpdated is a list"},
		{name: "short date", in: "---\nversion: 1.0.0\ncontributors: 1\nlastUpdated: 2026-5-19\n---\n",
			want: []problem{{LastUpdatedInvalid, 4}}},
		{name: "SKILL.md fields are not checked here", in: "---\nversion: 1.0.0\ncontributors: 1\nlastUpdated: 2026-01-01\nname: 5\n---\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := ParseMemory([]byte(tt.in))
			var got []problem
			for _, p := range m.Problems {
				got = append(got, problem{p.Kind, p.Line})
				if p.Message == "" {
					t.Errorf("problem %v has no message", p)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("problems = %v, want %v (%v)", got, tt.want, m.Problems)
			}
			if tt.message != "" && (len(m.Problems) == 0 || !strings.Contains(m.Problems[0].Message, tt.message)) {
				t.Errorf("first message %v lacks %q", m.Problems, tt.message)
			}
			if tt.fm != nil && !reflect.DeepEqual(m.Frontmatter, tt.fm) {
				t.Errorf("frontmatter = %+v, want %+v", m.Frontmatter, tt.fm)
			}
		})
	}
}

func TestMemoryEntries(t *testing.T) {
	type entry struct {
		Line         int
		List         bool
		Date, Signer string
		Section      string
	}
	tests := []struct {
		name string
		body string // after a 5-line frontmatter: the body starts on line 6
		want []entry
		text []string // Text of each entry, when set
	}{
		{name: "signed list items", body: "## What worked\n\n- one — @ann, 2026-05-12\n- two\n  — @bob, 2026-04-01\n",
			want: []entry{{8, true, "2026-05-12", "@ann", "What worked"}, {9, true, "2026-04-01", "@bob", "What worked"}},
			text: []string{"- one — @ann, 2026-05-12\n", "- two\n  — @bob, 2026-04-01\n"}},
		{name: "signature forms", body: "## A\n- a -- @x, 2026-01-02\n- b (@y, 2026-01-03)\n- c, @z, 2026-01-04.\n- d — 2026-01-05\n- e — @w\n- f 2026-13-01\n",
			want: []entry{
				{7, true, "2026-01-02", "@x", "A"}, {8, true, "2026-01-03", "@y", "A"}, {9, true, "2026-01-04", "@z", "A"},
				{10, true, "2026-01-05", "", "A"}, {11, true, "", "@w", "A"}, {12, true, "", "", "A"},
			}},
		{name: "paragraphs", body: "## Notes\nFirst paragraph\nstill first. — @a, 2026-01-01\n\nSecond.\n",
			want: []entry{{7, false, "2026-01-01", "@a", "Notes"}, {10, false, "", "", "Notes"}}},
		{name: "numbered and nested items", body: "## A\n1. one\n   - nested\n2) two\n* three\n+ four\n",
			want: []entry{{7, true, "", "", "A"}, {9, true, "", "", "A"}, {10, true, "", "", "A"}, {11, true, "", "", "A"}},
			text: []string{"1. one\n   - nested\n", "2) two\n", "* three\n", "+ four\n"}},
		{name: "item continued after a blank line", body: "## A\n- one\n\n  more of one\n- two\n",
			want: []entry{{7, true, "", "", "A"}, {10, true, "", "", "A"}},
			text: []string{"- one\n\n  more of one\n", "- two\n"}},
		{name: "paragraph after a list", body: "## A\n- one\n\nText.\n",
			want: []entry{{7, true, "", "", "A"}, {9, false, "", "", "A"}}},
		{name: "fenced code stays with its entry", body: "## A\n- run this:\n\n  ```sh\n  ## not a heading\n\n  - not an item\n  ```\n- two\n",
			want: []entry{{7, true, "", "", "A"}, {14, true, "", "", "A"}}},
		{name: "fence at top of a section", body: "## A\n```\n## no\n```\n",
			want: []entry{{7, false, "", "", "A"}}},
		{name: "preamble is not an entry", body: "# Memory\n\nIntro text.\n\n## A\n- one\n",
			want: []entry{{11, true, "", "", "A"}}},
		{name: "subheading is its own entry", body: "## A\n### Sub\n- one\n",
			want: []entry{{7, false, "", "", "A"}, {8, true, "", "", "A"}}},
		{name: "hashtag is text", body: "## A\n#tag line\n",
			want: []entry{{7, false, "", "", "A"}}},
		{name: "empty section", body: "## A\n\n## B\n- b\n",
			want: []entry{{9, true, "", "", "B"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := ParseMemory([]byte(goodFrontmatter + tt.body))
			if len(m.Problems) > 0 {
				t.Fatalf("problems: %v", m.Problems)
			}
			var got []entry
			var texts []string
			for _, e := range m.Entries() {
				got = append(got, entry{e.Line, e.List, e.Date, e.Signer, e.Section})
				texts = append(texts, e.Text)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("entries =\n%v\nwant\n%v", got, tt.want)
			}
			if tt.text != nil && !slices.Equal(texts, tt.text) {
				t.Errorf("texts = %q, want %q", texts, tt.text)
			}
		})
	}
}

func TestMemorySections(t *testing.T) {
	m := ParseMemory([]byte(goodFrontmatter + "# Title\n\n## What worked\n## What didn’t\n## Edge Cases:\n## open questions\n## Rollout notes ##\n"))
	var got []Section
	for _, s := range m.Sections {
		got = append(got, s.Section)
	}
	want := []Section{
		{"What worked", 8, true}, {"What didn’t", 9, true}, {"Edge Cases:", 10, true},
		{"open questions", 11, true}, {"Rollout notes", 12, false},
	}
	if !slices.Equal(got, want) {
		t.Errorf("sections = %v, want %v", got, want)
	}
	if m.Preamble != "# Title\n" || m.PreambleLine != 6 {
		t.Errorf("preamble %q on line %d", m.Preamble, m.PreambleLine)
	}
}

func TestMemoryBodyAfterUnreadableFrontmatter(t *testing.T) {
	m := ParseMemory([]byte("---\nversion: [\n---\n## A\n- one\n"))
	if len(m.Problems) != 1 || m.Problems[0].Kind != FrontmatterInvalid {
		t.Fatalf("problems = %v", m.Problems)
	}
	if e := m.Entries(); len(e) != 1 || e[0].Line != 5 {
		t.Errorf("entries = %+v, want one on line 5", e)
	}
}

func TestBefore(t *testing.T) {
	a := Entry{Date: "2026-05-01"}
	b := Entry{Date: "2026-04-01"}
	none := Entry{}
	tests := []struct {
		x, y Entry
		want bool
	}{
		{a, b, true}, {b, a, false}, {a, a, false}, {a, none, true}, {none, a, false}, {none, none, false},
	}
	for i, tt := range tests {
		if got := Before(tt.x, tt.y); got != tt.want {
			t.Errorf("%d: Before(%q, %q) = %v", i, tt.x.Date, tt.y.Date, got)
		}
	}
}

func TestExamples(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		blocks   []Example // Text not compared
		problems []int     // lines of ExampleIncomplete problems
		message  string
	}{
		{name: "complete", in: "## Example: one\n\n### Input\nx\n\n### Output\ny\n\n### Why this example\nz\n",
			blocks: []Example{{Title: "Example: one", Line: 1, InputLine: 3, OutputLine: 6, WhyLine: 9}}},
		{name: "headings are case and colon insensitive", in: "## One\n### input:\nx\n### OUTPUT\ny\n### Why This Example\n",
			blocks: []Example{{Title: "One", Line: 1, InputLine: 2, OutputLine: 4, WhyLine: 6}}},
		{name: "no output", in: "intro\n\n## One\n### Input\nx\n",
			blocks:   []Example{{Title: "One", Line: 3, InputLine: 4}},
			problems: []int{3}, message: `example "One" has no ### Output`},
		{name: "neither", in: "## One\ntext\n## Two\n### Input\n### Output\n",
			blocks:   []Example{{Title: "One", Line: 1}, {Title: "Two", Line: 3, InputLine: 4, OutputLine: 5}},
			problems: []int{1}, message: "no ### Input and no ### Output"},
		{name: "headings in code do not count", in: "## One\n```\n### Input\n### Output\n```\n",
			blocks:   []Example{{Title: "One", Line: 1}},
			problems: []int{1}},
		{name: "H4 does not count", in: "## One\n#### Input\n### Output\n",
			blocks:   []Example{{Title: "One", Line: 1, OutputLine: 3}},
			problems: []int{1}},
		{name: "no blocks", in: "Nothing yet.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := ParseExamples([]byte(tt.in))
			var got []Example
			for _, b := range x.Blocks {
				if !strings.HasPrefix(b.Text, "## ") {
					t.Errorf("block text %q does not start with its heading", b.Text)
				}
				b.Text = ""
				got = append(got, b)
			}
			if !slices.Equal(got, tt.blocks) {
				t.Errorf("blocks = %+v, want %+v", got, tt.blocks)
			}
			var lines []int
			for _, p := range x.Problems {
				if p.Kind != ExampleIncomplete {
					t.Errorf("problem kind %s", p.Kind)
				}
				lines = append(lines, p.Line)
			}
			if !slices.Equal(lines, tt.problems) {
				t.Errorf("problem lines = %v, want %v", lines, tt.problems)
			}
			if tt.message != "" && !strings.Contains(x.Problems[0].Message, tt.message) {
				t.Errorf("message %q lacks %q", x.Problems[0].Message, tt.message)
			}
		})
	}
}

func TestCalibration(t *testing.T) {
	c := ParseCalibration([]byte("Intro\n## Terminology\n## Output format\n## Avoid\n## Compliance\n## Tone\n"))
	want := []Section{{"Terminology", 2, true}, {"Output format", 3, true}, {"Avoid", 4, true}, {"Compliance", 5, true}, {"Tone", 6, false}}
	if !slices.Equal(c.Sections, want) {
		t.Errorf("sections = %v, want %v", c.Sections, want)
	}
}

func TestSiblingNames(t *testing.T) {
	for _, tt := range []struct {
		name      string
		sibling   bool
		canonical string
	}{
		{"MEMORY.md", true, ""}, {"EXAMPLES.md", true, ""}, {"CALIBRATION.md", true, ""},
		{"memory.md", false, "MEMORY.md"}, {"Examples.md", false, "EXAMPLES.md"}, {"calibration.MD", false, "CALIBRATION.md"},
		{"SKILL.md", false, ""}, {"MEMORY.txt", false, ""}, {"MEMORY.md.bak", false, ""},
	} {
		if got := IsSibling(tt.name); got != tt.sibling {
			t.Errorf("IsSibling(%q) = %v", tt.name, got)
		}
		c, ok := CaseVariant(tt.name)
		if c != tt.canonical || ok != (tt.canonical != "") {
			t.Errorf("CaseVariant(%q) = %q, %v", tt.name, c, ok)
		}
	}
}

func TestExampleSkillSummary(t *testing.T) {
	files := map[string][]byte{}
	for _, name := range append(slices.Clone(Files), "SKILL.md") {
		data, err := os.ReadFile("../../examples/skills/incident-postmortem/" + name)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = data
	}
	set := ParseSet(files)
	for _, p := range append(set.Memory.Problems, set.Examples.Problems...) {
		t.Errorf("example skill: %v", p)
	}
	got := set.Summary()
	want := Summary{Siblings: []string{CalibrationFile, ExamplesFile, MemoryFile}, MemoryEntries: 5, Examples: 2}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("summary = %+v, want %+v", got, want)
	}
	if s := (Set{}).Summary(); len(s.Siblings) != 0 || s.Siblings == nil {
		t.Errorf("empty summary = %+v, want an empty, non-nil list", s)
	}
}
