package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/stax-dev/stax/pkg/discover"
	"github.com/stax-dev/stax/pkg/render"
	"github.com/stax-dev/stax/pkg/skill"
	"github.com/stax-dev/stax/pkg/stateful"
	"github.com/stax-dev/stax/pkg/substitute"
)

// SkillInput is what the model passes to the Skill tool.
type SkillInput struct {
	Name      string `json:"name" jsonschema:"the name of the skill to load, as listed in this tool's description or by ListSkills"`
	Arguments string `json:"arguments,omitempty" jsonschema:"what the skill should work on, e.g. an issue number; words in quotes stay one argument"`
}

// ListSkillsInput is what the model passes to ListSkills.
type ListSkillsInput struct {
	Query string `json:"query,omitempty" jsonschema:"words that must all appear in a skill's name or description (any case); empty lists every skill"`
}

// ListSkillsOutput is the structured result of ListSkills.
type ListSkillsOutput struct {
	Runtime string `json:"runtime"`
	// Skills are those the Skill tool loads that match the query, in menu
	// order.
	Skills []ListedSkill `json:"skills"`
	// Unloadable are the skills that cannot load, matching the query or
	// not: a skill is never silently left out.
	Unloadable []Unloadable `json:"unloadable"`
}

// ListedSkill is a skill ListSkills returns.
type ListedSkill struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Scope       string `json:"scope"`
	Dir         string `json:"dir"`
}

// Unloadable is a skill the runtime cannot load, and why.
type Unloadable struct {
	Key string `json:"key"`
	// File is the SKILL.md at fault; Line its line, 0 when not one line.
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	Problem string `json:"problem"`
}

// describe is the Skill tool's description for l: what the tool does, then
// the menu, cut at the inline limit with a pointer to ListSkills.
func (s *Server) describe(l *discover.Listing) string {
	offered := l.Offered()
	var b strings.Builder
	b.WriteString("Load a skill: instructions for a recurring task, with the calibration, examples and memory " +
		"its users have added. When the task at hand matches a skill's description, call this tool with the " +
		"skill's name (and, in arguments, what it should work on) before starting, then follow what it returns.\n\n")
	if len(offered) == 0 {
		fmt.Fprintf(&b, "No skills are installed for %s in this project or for this user.", l.Runtime)
		return b.String()
	}
	shown := offered
	if s.opts.InlineLimit > 0 && len(offered) > s.opts.InlineLimit {
		shown = offered[:s.opts.InlineLimit]
	}
	b.WriteString("Skills:\n")
	b.WriteString(discover.MenuLines(shown))
	if len(shown) < len(offered) {
		fmt.Fprintf(&b, "\nThese are %d of %d skills. Call %s, with a query to narrow it, to find the other %d.\n",
			len(shown), len(offered), ListSkillsTool, len(offered)-len(shown))
	}
	return b.String()
}

func (s *Server) addSkillTool(description string) {
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name:        SkillTool,
		Title:       "Load a skill",
		Description: description,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, s.invoke)
}

// invoke returns the skill in.Name as the runtime loads it: the SKILL.md
// body, CALIBRATION.md, EXAMPLES.md and MEMORY.md in load order, with
// variables substituted and fitted to the budget. A skill that cannot
// load whole is a tool error saying why.
func (s *Server) invoke(ctx context.Context, _ *mcp.CallToolRequest, in SkillInput) (*mcp.CallToolResult, any, error) {
	l := s.current()
	sk, ok := l.Find(in.Name)
	switch {
	case !ok && sk.Dir != "":
		return nil, nil, fmt.Errorf("skill %q cannot load (%s): %s", in.Name, filepath.Join(sk.Dir, skill.FileName), sk.Problem)
	case !ok:
		return nil, nil, fmt.Errorf("no skill %q: call %s to see the skills there are", in.Name, ListSkillsTool)
	case sk.ModelHidden:
		return nil, nil, fmt.Errorf("skill %q is for users to invoke, not the model (disable-model-invocation is set)", in.Name)
	}
	if s.opts.Admit != nil {
		if err := s.opts.Admit(ctx, sk.Dir); err != nil {
			return nil, nil, err
		}
	}
	files, err := s.readSkill(sk)
	if err != nil {
		return nil, nil, err
	}
	files.Name = sk.Name
	res, err := render.Render(files, render.Options{
		Budget: s.opts.Budget,
		Substitute: substitute.Options{
			Arguments: substitute.Split(in.Arguments),
			SkillDir:  sk.Dir,
			Workspace: s.opts.Workspace,
		},
	})
	if err != nil {
		return nil, nil, err
	}
	return &mcp.CallToolResult{
		Content: []mcp.Content{&mcp.TextContent{Text: res.Text}},
		Meta:    mcp.Meta{RenderMetaKey: renderMeta{Files: res.Files, Bytes: res.Bytes, Tokens: res.Tokens, Budget: res.Budget, Dropped: res.Dropped}},
	}, nil, nil
}

// readSkill reads the files of skill sk the Skill tool renders. Both
// surfaces serve what the index does: of a skill the extension serves,
// only the files its entry names are read, each held to the entry as a
// resource read is (see Server.reconcile), so that a file planted in its
// directory is rendered no more than it is listed, and one removed or
// changed refreshes the entry before the text is served; a refused skill
// is refused. Any other skill is read from its directory.
func (s *Server) readSkill(sk discover.Skill) (render.Skill, error) {
	is := s.index().of(sk.Key, sk.Dir)
	if is == nil {
		files, err := render.ReadDir(sk.Dir)
		if err != nil {
			return render.Skill{}, fmt.Errorf("skill %q: %w", sk.Name, err)
		}
		return files, nil
	}
	if is.refused != "" {
		return render.Skill{}, errors.New(is.refused)
	}
	files := render.Skill{Siblings: map[string][]byte{}}
	for _, rel := range append([]string{skill.FileName}, stateful.Files...) {
		if _, ok := is.file(rel); !ok {
			continue
		}
		limit := int64(stateful.MaxFileSize)
		if rel == skill.FileName {
			limit = skill.MaxFileSize
		}
		data, info, err := readSkillFile(skillFile{key: is.key, dir: is.dir, rel: rel, resource: &mcp.Resource{URI: URI(is.key, rel)}}, limit)
		switch {
		case errors.Is(err, fs.ErrNotExist), notAFile(err):
			if s.removeFile(is, rel); rel != skill.FileName {
				break
			}
			if notAFile(err) {
				return render.Skill{}, fmt.Errorf("skill %q: its %s in %s is no longer a file (%w) since it was listed", sk.Name, skill.FileName, sk.Dir, err)
			}
			return render.Skill{}, fmt.Errorf("skill %q: its %s was removed from %s after it was listed", sk.Name, skill.FileName, sk.Dir)
		case err != nil:
			return render.Skill{}, fmt.Errorf("skill %q: reading %s: %w", sk.Name, filepath.Join(sk.Dir, filepath.FromSlash(rel)), err)
		case rel == skill.FileName:
			files.SkillMD = data
			s.reconcile(is, rel, info, data)
		default:
			files.Siblings[rel] = data
			s.reconcile(is, rel, info, data)
		}
		if is = s.index().of(sk.Key, sk.Dir); is == nil { // as refreshed
			return render.Skill{}, fmt.Errorf("skill %q changed on disk as it was read: call %s again", sk.Name, SkillTool)
		}
	}
	if is.refused != "" {
		return render.Skill{}, errors.New(is.refused)
	}
	return files, nil
}

// RenderMetaKey is the _meta key of a Skill result that tells, for
// clients and logs rather than the model, what the text is made of: the
// files in load order, its size, and what was dropped to fit the budget.
const RenderMetaKey = "dev.stax/render"

type renderMeta struct {
	Files   []string       `json:"files"`
	Bytes   int64          `json:"bytes"`
	Tokens  int64          `json:"tokens"`
	Budget  render.Budget  `json:"budget"`
	Dropped []render.Piece `json:"dropped"`
}

// listSkills is the second tier of the menu: every skill, or those whose
// name or description has every word of the query.
func (s *Server) listSkills(_ context.Context, _ *mcp.CallToolRequest, in ListSkillsInput) (*mcp.CallToolResult, ListSkillsOutput, error) {
	l := s.current()
	words := strings.Fields(strings.ToLower(in.Query))
	out := ListSkillsOutput{Runtime: l.Runtime, Skills: []ListedSkill{}, Unloadable: []Unloadable{}}
	var matched []discover.Skill
	for _, sk := range l.Offered() {
		text := strings.ToLower(sk.Name + " " + sk.Description)
		if containsAll(text, words) {
			matched = append(matched, sk)
			out.Skills = append(out.Skills, ListedSkill{Name: sk.Name, Description: sk.Description, Scope: string(sk.Scope), Dir: sk.Dir})
		}
	}
	for _, sk := range l.Skills {
		if sk.Problem != "" {
			out.Unloadable = append(out.Unloadable, unloadable(sk))
		}
	}

	var b strings.Builder
	switch {
	case len(matched) == 0 && len(words) > 0:
		fmt.Fprintf(&b, "No skill matches %q.\n", in.Query)
	case len(matched) == 0:
		b.WriteString("No skills.\n")
	default:
		b.WriteString(discover.MenuLines(matched))
	}
	if len(out.Unloadable) > 0 {
		b.WriteString("\nSkills that cannot load:\n")
		for _, u := range out.Unloadable {
			fmt.Fprintf(&b, "- %s\n", u)
		}
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}}, out, nil
}

func containsAll(text string, words []string) bool {
	for _, w := range words {
		if !strings.Contains(text, w) {
			return false
		}
	}
	return true
}

func unloadable(sk discover.Skill) Unloadable {
	return Unloadable{Key: sk.Key, File: filepath.Join(sk.Dir, skill.FileName), Line: sk.Line, Problem: sk.Problem}
}

// String is the problem as a compiler would print it: file:line: problem.
func (u Unloadable) String() string {
	if u.Line > 0 {
		return fmt.Sprintf("%s:%d: skill %s cannot load: %s", u.File, u.Line, u.Key, u.Problem)
	}
	return fmt.Sprintf("%s: skill %s cannot load: %s", u.File, u.Key, u.Problem)
}

// problems are the messages about l that clients must see: the skills
// that cannot load and the folders that cannot be read.
func problems(l *discover.Listing) []string {
	var out []string
	for _, sk := range l.Skills {
		if sk.Problem != "" {
			out = append(out, unloadable(sk).String())
		}
	}
	return append(out, l.Warnings...)
}
