// Package discover finds the skills an agent runtime would load, the way
// the runtime does it (docs/layering-and-install.md, "What a runtime
// loads"): it reads every skills folder of the runtime in priority order
// (project, user, plugins), keys each skill by its directory name, and
// lets a skill in an earlier folder shadow one of the same name in a later
// folder.
//
// Unlike a runtime, it never drops a skill silently: a skill whose
// SKILL.md cannot be loaded is listed with the reason, and a shadowed
// skill is listed with what shadows it.
package discover

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"

	"github.com/stax-dev/stax/internal/inorder"
	"github.com/stax-dev/stax/internal/regularfile"
	"github.com/stax-dev/stax/pkg/agent"
	"github.com/stax-dev/stax/pkg/skill"
)

// Options selects the runtime and where to look.
type Options struct {
	Runtime agent.Runtime
	// Project is the project root; Home the user's home directory.
	Project string
	Home    string
	// Folders, when set, are read in place of the runtime's folders, in
	// priority order: the folders stax serves packages from (see
	// mcpserver.Options.Folders).
	Folders []agent.Location
	// Parsed, when set, may give the skill of directory dir, as Parse
	// made it of the SKILL.md the process that wrote the folder has, in
	// place of reading it: stax mcp --package parses the skills it
	// extracts as they are written, and lists them without reading them
	// back. List calls it from one goroutine.
	Parsed func(dir string) (Skill, bool)
}

// Skill is one skill directory found in a runtime's folders.
type Skill struct {
	// Key is the directory name: runtimes key skills by it, so two skills
	// with the same key shadow each other.
	Key string `json:"key"`
	// Name is the frontmatter name, or Key when it cannot be read.
	Name string `json:"name"`
	// Description is the frontmatter description on one line.
	Description string      `json:"description"`
	Dir         string      `json:"dir"`
	Scope       agent.Scope `json:"scope"`
	// Location is the skills folder it was found in.
	Location string `json:"location"`
	// ShadowedBy is the Dir of the skill that hides this one; empty when
	// the runtime loads this one.
	ShadowedBy string `json:"shadowedBy,omitempty"`
	// Problem says why the runtime cannot load the skill; empty when it
	// can. A skill with a problem shadows nothing.
	Problem string `json:"problem,omitempty"`
	// Line is the line of SKILL.md the Problem is on, 0 when it is not
	// about one line.
	Line int `json:"line,omitempty"`
	// Ignored lists the frontmatter fields the runtime does not honour
	// but another runtime does: settings the skill loses here. Packaging
	// metadata no runtime acts on (version, tags) is not listed.
	Ignored []string `json:"ignoredFields,omitempty"`
	// ModelHidden is set when the skill asks not to be offered to the
	// model (disable-model-invocation: true) and the runtime honours it:
	// users can still invoke it, but it is not in the model's menu.
	ModelHidden bool `json:"modelHidden,omitempty"`
	// Installed is the package stax installed the skill from; nil for a
	// skill stax did not install (a local one). List leaves it nil: the
	// record of what stax installed is read by workflow.List.
	Installed *Origin `json:"installed,omitempty"`

	doc *skill.Document
	// fields are doc's frontmatter fields, made once (see Fields).
	fields    map[string]any
	fieldsErr error
}

// Origin is the package a skill was installed from, as the record stax
// keeps in the skill's folder says.
type Origin struct {
	// Package is the reference as installed; a tag may have moved since,
	// and Digest pins what was installed.
	Package string `json:"package"`
	// Version is the package's version; empty when the record is older
	// than versions in it.
	Version string `json:"version,omitempty"`
	Digest  string `json:"digest"`
}

// Visible reports whether the runtime loads the skill.
func (s Skill) Visible() bool { return s.Problem == "" && s.ShadowedBy == "" }

// Body is the SKILL.md body: what a runtime's Skill tool returns when the
// skill is invoked. Empty when the skill cannot be loaded.
func (s Skill) Body() string {
	if s.doc == nil {
		return ""
	}
	return s.doc.Body
}

// Fields is the whole SKILL.md frontmatter as skill.Frontmatter.Fields
// gives it, unknown fields included; nil when the skill cannot be loaded.
// The map is the skill's own, made as it was parsed: not to be changed.
func (s Skill) Fields() (map[string]any, error) {
	if s.doc == nil {
		return nil, nil
	}
	return s.fields, s.fieldsErr
}

// Unparsed is s without its parsed SKILL.md, whose Body and Fields are
// then empty: what a listing held for long keeps of a skill already made
// into what it serves.
func (s Skill) Unparsed() Skill {
	s.doc, s.fields, s.fieldsErr = nil, nil, nil
	return s
}

// Folder is one skills folder of the runtime.
type Folder struct {
	agent.Location
	Exists bool `json:"exists"`
}

// Listing is what a runtime sees.
type Listing struct {
	Runtime string   `json:"runtime"`
	Folders []Folder `json:"folders"`
	// Skills are in priority order: by folder, then by key.
	Skills []Skill `json:"skills"`
	// Warnings are folders that exist but cannot be read.
	Warnings []string `json:"warnings"`
}

// List reads every folder of the runtime.
func List(opts Options) (*Listing, error) {
	locs := opts.Folders
	if locs == nil {
		var err error
		if locs, err = opts.Runtime.Locations(opts.Project, opts.Home); err != nil {
			return nil, err
		}
	}
	l := &Listing{Runtime: opts.Runtime.Name, Folders: []Folder{}, Warnings: []string{}}
	read := make([][]Skill, len(locs))
	n := 0
	for i, loc := range locs {
		f := Folder{Location: loc}
		entries, err := os.ReadDir(loc.Dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			f.Exists = true
			l.Warnings = append(l.Warnings, fmt.Sprintf("cannot read %s: %v", loc.Dir, err))
		default:
			f.Exists = true
		}
		l.Folders = append(l.Folders, f)
		read[i] = readSkills(opts, loc, entries)
		n += len(read[i])
	}
	l.Skills = make([]Skill, 0, n)
	winners := make(map[string]string, n) // key → Dir of the skill the runtime loads
	for _, skills := range read {
		for _, s := range skills {
			if w, taken := winners[s.Key]; taken {
				s.ShadowedBy = w
			} else if s.Problem == "" {
				winners[s.Key] = s.Dir
			}
			l.Skills = append(l.Skills, s)
		}
	}
	// A broken skill listed before the skill that loads in its place is
	// not shadowed by it, but it does not load either: say which one does.
	for i, s := range l.Skills {
		if s.Problem != "" && s.ShadowedBy == "" {
			if w, ok := winners[s.Key]; ok {
				l.Skills[i].Problem += "; the runtime loads " + w + " instead"
			}
		}
	}
	return l, nil
}

// readSkills reads the skills of entries, the directory listing of loc,
// in its order, as many at once as there are processors: reading and
// parsing a thousand SKILL.md files, one after another, is most of
// listing a large folder.
func readSkills(opts Options, loc agent.Location, entries []os.DirEntry) []Skill {
	read := make([]Skill, len(entries))
	found := make([]bool, len(entries))
	// A skill given parsed is not read: handing a thousand of them to
	// goroutines costs more than taking them here.
	var unread []int
	for i, e := range entries {
		if read[i], found[i] = parsedSkill(opts, loc, e.Name()); !found[i] {
			unread = append(unread, i)
		}
	}
	_ = inorder.Concurrently(context.Background(), len(unread), runtime.GOMAXPROCS(0), func(_ context.Context, j int) error {
		i := unread[j]
		read[i], found[i] = readSkill(opts, loc, entries[i].Name())
		return nil
	})
	skills := read[:0]
	for i := range read {
		if found[i] {
			skills = append(skills, read[i])
		}
	}
	return skills
}

// parsedSkill is the skill of directory name in loc as opts.Parsed gives
// it, if it does; never a hidden directory's.
func parsedSkill(opts Options, loc agent.Location, name string) (Skill, bool) {
	if opts.Parsed == nil || strings.HasPrefix(name, ".") {
		return Skill{}, false
	}
	return opts.Parsed(filepath.Join(loc.Dir, name))
}

// readSkill reads the skill directory name in loc, not given parsed (see
// parsedSkill). It reports false for an entry that is not a skill at all:
// a file, a hidden directory, or a directory without SKILL.md in any
// spelling.
func readSkill(opts Options, loc agent.Location, name string) (Skill, bool) {
	if strings.HasPrefix(name, ".") {
		return Skill{}, false
	}
	s := newSkill(loc, name)
	dir := s.Dir
	// Stat follows symlinks: installers often link skills into these folders.
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return Skill{}, false
	}
	data, err := regularfile.ReadFile(filepath.Join(dir, skill.FileName), skill.MaxFileSize)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if other := caseVariant(dir); other != "" {
			s.Problem = fmt.Sprintf("no %s, but %s: runtimes read %s only under that exact name", skill.FileName, other, skill.FileName)
			return s, true
		}
		return Skill{}, false
	case err != nil:
		s.Problem = fmt.Sprintf("cannot read %s: %v", skill.FileName, err)
		return s, true
	}
	return parseSkill(opts.Runtime, s, data), true
}

// newSkill is the skill of directory name in loc, before its SKILL.md is
// read.
func newSkill(loc agent.Location, name string) Skill {
	return Skill{Key: name, Name: name, Dir: filepath.Join(loc.Dir, name), Scope: loc.Scope, Location: loc.Dir}
}

// Parse is the skill of directory name in folder loc whose SKILL.md is
// data, as List finds it for runtime rt: one that cannot load says why
// in its Problem.
func Parse(rt agent.Runtime, loc agent.Location, name string, data []byte) Skill {
	return parseSkill(rt, newSkill(loc, name), data)
}

// parseSkill is s with what its SKILL.md, data, says.
func parseSkill(rt agent.Runtime, s Skill, data []byte) Skill {
	doc, err := skill.Parse(data)
	if err != nil {
		s.Problem = fmt.Sprintf("%s frontmatter does not parse: %v", skill.FileName, err)
		if errors.Is(err, skill.ErrTooLarge) {
			// Refused before it was parsed.
			s.Problem = fmt.Sprintf("%s is over a limit: %v", skill.FileName, err)
		}
		if pe := (*skill.ParseError)(nil); errors.As(err, &pe) {
			s.Line = pe.Line
		}
		return s
	}
	f := doc.Frontmatter
	if f.Name != "" {
		s.Name = f.Name
	}
	s.Description = strings.Join(strings.Fields(f.Description), " ")
	if problem, line := hiddenTextProblem(data); problem != "" {
		s.Problem, s.Line = problem, line
		return s
	}
	switch {
	case f.Name == "":
		s.Problem = fmt.Sprintf("%s has no name; runtimes require name and description", skill.FileName)
	case s.Description == "":
		s.Problem = fmt.Sprintf("%s has no description; runtimes require name and description", skill.FileName)
	}
	s.doc = doc
	s.fields, s.fieldsErr = f.Fields()
	if s.fieldsErr == nil {
		var present []string
		for k := range s.fields {
			if agent.HonouredByAny(k) {
				present = append(present, k)
			}
		}
		sort.Strings(present)
		s.Ignored = rt.Ignored(present)
		s.ModelHidden = s.fields["disable-model-invocation"] == true && rt.Honours("disable-model-invocation")
	}
	return s
}

// caseVariant names a file of dir that spells SKILL.md in another case.
func caseVariant(dir string) string {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() != skill.FileName && strings.EqualFold(e.Name(), skill.FileName) {
			return e.Name()
		}
	}
	return ""
}

// Visible lists the skills the runtime loads, sorted by name.
func (l *Listing) Visible() []Skill {
	out := make([]Skill, 0, len(l.Skills))
	for _, s := range l.Skills {
		if s.Visible() {
			out = append(out, s)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Find returns the skill the runtime loads for name, matched against the
// directory name first, then the frontmatter name. When no visible skill
// matches, it returns the best match that cannot load, and false.
func (l *Listing) Find(name string) (Skill, bool) {
	for _, match := range []func(Skill) bool{
		func(s Skill) bool { return s.Key == name },
		func(s Skill) bool { return s.Name == name },
	} {
		for _, s := range l.Skills {
			if s.Visible() && match(s) {
				return s, true
			}
		}
	}
	for _, s := range l.Skills {
		if s.Key == name || s.Name == name {
			return s, false
		}
	}
	return Skill{}, false
}

// Offered are the skills a runtime loads and offers to the model, in the
// order of its menu: sorted by name.
func (l *Listing) Offered() []Skill {
	return slices.DeleteFunc(l.Visible(), func(s Skill) bool { return s.ModelHidden })
}

// Prompt is the menu a runtime puts in its Skill tool's description: one
// "- name: description" line per skill it loads and offers to the model,
// sorted by name.
func (l *Listing) Prompt() string {
	return MenuLines(l.Offered())
}

// MenuLines are the "- name: description" lines of skills, in the order
// given.
func MenuLines(skills []Skill) string {
	var b strings.Builder
	for _, s := range skills {
		fmt.Fprintf(&b, "- %s: %s\n", s.Name, s.Description)
	}
	return b.String()
}
