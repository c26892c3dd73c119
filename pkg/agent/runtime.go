// Package agent is the table of agent runtimes stax knows: where each
// one reads skills, in what priority, and which SKILL.md frontmatter
// fields it honours. stax list and stax show read it to show what a
// runtime sees; an installer writes into a runtime's primary folders.
//
// The folders come from the runtimes' documentation as collected in the
// project's landscape notes (§3); where a runtime reads more than one
// project folder, the first is the one it documents as its own (where an
// installer should write), the others are folders it also reads, in the
// order it prefers them. Project folders are relative to the project root,
// user folders to the home directory.
package agent

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/stax-dev/stax/internal/editdistance"
)

// Scope says where a skills folder sits; it is also the priority order:
// project skills shadow user skills, which shadow plugin skills.
type Scope string

const (
	ScopeProject Scope = "project"
	ScopeUser    Scope = "user"
	ScopePlugin  Scope = "plugin"
)

// Runtime describes one agent runtime.
type Runtime struct {
	// Name is the identifier users type (--runtime claude-code).
	Name string
	// Aliases are other names users type for it (claude, copilot).
	Aliases []string
	// Title is the product name, for messages.
	Title string
	// Project lists the skills folders relative to the project root,
	// primary first.
	Project []string
	// User lists the skills folders relative to the home directory,
	// primary first.
	User []string
	// Plugins lists glob patterns, relative to the home directory, of the
	// skills folders of installed plugins.
	Plugins []string
	// Fields are the frontmatter fields the runtime honours.
	Fields []string
}

// baseFields are the fields of the Agent Skills specification, which every
// runtime in the table reads.
var baseFields = []string{"name", "description", "license", "compatibility", "metadata"}

// claudeCodeFields are the fields Claude Code honours beyond the base
// (landscape §3).
var claudeCodeFields = []string{
	"allowed-tools", "model", "argument-hint", "user-invocable", "disable-model-invocation",
	"when_to_use", "context", "agent", "hooks", "paths",
}

// table is the one list of runtimes. Most runtimes other than Claude Code
// document only the Agent Skills fields, and ignore allowed-tools and
// model: their Fields are the base set, so stax warns about the rest.
var table = []Runtime{
	{
		Name: "claude-code", Title: "Claude Code", Aliases: []string{"claude"},
		Project: []string{".claude/skills"},
		User:    []string{".claude/skills"},
		// Claude Code installs plugins below ~/.claude/plugins; the table
		// assumes the flat layout <plugin>/skills directly under it. Plugins
		// installed from a marketplace nest deeper (marketplaces/<m>/plugins/
		// <plugin>/skills, cache/<m>/<plugin>/<version>/skills) and are not
		// listed.
		Plugins: []string{".claude/plugins/*/skills"},
		Fields:  append(slices.Clone(baseFields), claudeCodeFields...),
	},
	{
		Name: "codex", Title: "OpenAI Codex",
		Project: []string{".agents/skills"},
		// Older Codex documentation names ~/.codex/skills.
		User:   []string{".agents/skills", ".codex/skills"},
		Fields: baseFields,
	},
	{
		Name: "cursor", Title: "Cursor",
		Project: []string{".cursor/skills", ".agents/skills", ".claude/skills"},
		User:    []string{".cursor/skills"},
		Fields:  baseFields,
	},
	{
		Name: "github-copilot", Title: "GitHub Copilot", Aliases: []string{"copilot"},
		Project: []string{".github/skills", ".claude/skills", ".agents/skills"},
		User:    []string{".copilot/skills"},
		Fields:  baseFields,
	},
	{
		Name: "opencode", Title: "OpenCode",
		Project: []string{".opencode/skills", ".claude/skills", ".agents/skills"},
		User:    []string{".config/opencode/skills"},
		Fields:  baseFields,
	},
	{
		Name: "gemini", Title: "Gemini CLI", Aliases: []string{"gemini-cli"},
		Project: []string{".gemini/skills", ".agents/skills"},
		User:    []string{".gemini/skills"},
		Fields:  baseFields,
	},
	{
		Name: "windsurf", Title: "Windsurf",
		Project: []string{".windsurf/skills"},
		User:    []string{".codeium/windsurf/skills"},
		Fields:  baseFields,
	},
	{
		Name: "goose", Title: "Goose",
		Project: []string{".agents/skills"},
		User:    []string{".agents/skills"},
		Fields:  baseFields,
	},
	{
		// https://kiro.dev/docs/skills: workspace skills in .kiro/skills,
		// global skills in ~/.kiro/skills.
		Name: "kiro", Title: "Kiro",
		Project: []string{".kiro/skills"},
		User:    []string{".kiro/skills"},
		Fields:  baseFields,
	},
	{
		// https://docs.cline.bot/customization/skills: .cline/skills
		// (recommended), .clinerules/skills (alternate), ~/.cline/skills.
		Name: "cline", Title: "Cline",
		Project: []string{".cline/skills", ".clinerules/skills"},
		User:    []string{".cline/skills"},
		Fields:  baseFields,
	},
	{
		// https://docs.roocode.com/features/skills: .roo/skills in the
		// project, ~/.roo/skills for every project. Its mode-specific
		// folders (skills-<mode>) are left out: stax installs for every mode.
		Name: "roo-code", Title: "Roo Code", Aliases: []string{"roo"},
		Project: []string{".roo/skills"},
		User:    []string{".roo/skills"},
		Fields:  baseFields,
	},
	{
		// https://www.jetbrains.com/help/air/skills.html: .junie/skills in
		// the project; https://zenn.dev/nattosystem_jp/articles/83eac3ea4f3b2f
		// (after JetBrains' post on Agent Skills): ~/.junie/skills.
		Name: "junie", Title: "JetBrains Junie",
		Project: []string{".junie/skills"},
		User:    []string{".junie/skills"},
		Fields:  baseFields,
	},
	{
		// https://qwenlm.github.io/qwen-code-docs/en/users/features/skills/:
		// project skills in .qwen/skills, personal ones in ~/.qwen/skills.
		Name: "qwen-code", Title: "Qwen Code", Aliases: []string{"qwen"},
		Project: []string{".qwen/skills"},
		User:    []string{".qwen/skills"},
		Fields:  baseFields,
	},
	{
		// The shared .agents/skills convention, read by several runtimes:
		// installing there reaches all of them at once.
		Name: "agents", Title: "the shared .agents/skills folder",
		Project: []string{".agents/skills"},
		User:    []string{".agents/skills"},
		Fields:  baseFields,
	},
}

// Defined is a runtime known by its folders alone, as a project defines
// one for an agent the table does not list: one project folder and one
// user folder, and the Agent Skills fields.
func Defined(name, project, user string) Runtime {
	return Runtime{Name: name, Title: name, Project: []string{project}, User: []string{user}, Fields: slices.Clone(baseFields)}
}

// Default is the runtime commands use when none is named.
const Default = "claude-code"

// All returns every runtime of the table, in table order.
func All() []Runtime {
	out := make([]Runtime, len(table))
	for i, r := range table {
		out[i] = r.clone()
	}
	return out
}

// Names lists the runtime names, sorted.
func Names() []string {
	names := make([]string, len(table))
	for i, r := range table {
		names[i] = r.Name
	}
	sort.Strings(names)
	return names
}

// Lookup finds a runtime by name or alias, whatever the case.
func Lookup(name string) (Runtime, bool) {
	for _, r := range table {
		if strings.EqualFold(r.Name, name) || slices.ContainsFunc(r.Aliases, func(a string) bool { return strings.EqualFold(a, name) }) {
			return r.clone(), true
		}
	}
	return Runtime{}, false
}

// NamesAndAliases lists every name Lookup accepts in lower case, sorted:
// what shell completion offers.
func NamesAndAliases() []string {
	var names []string
	for _, r := range table {
		names = append(names, r.Name)
		names = append(names, r.Aliases...)
	}
	sort.Strings(names)
	return names
}

// Find is Lookup with an error that lists the known names and aliases.
func Find(name string) (Runtime, error) {
	if r, ok := Lookup(name); ok {
		return r, nil
	}
	var known []string
	for _, n := range Names() {
		r, _ := Lookup(n)
		if len(r.Aliases) > 0 {
			n += " (" + strings.Join(r.Aliases, ", ") + ")"
		}
		known = append(known, n)
	}
	near := ""
	if meant := editdistance.Closest(strings.ToLower(name), NamesAndAliases()); meant != "" {
		near = fmt.Sprintf(" (did you mean %s?)", meant)
	}
	return Runtime{}, fmt.Errorf("unknown runtime %q%s; known runtimes: %s", name, near, strings.Join(known, ", "))
}

// clone copies the slices, so that callers cannot change the table.
func (r Runtime) clone() Runtime {
	r.Aliases = slices.Clone(r.Aliases)
	r.Project = slices.Clone(r.Project)
	r.User = slices.Clone(r.User)
	r.Plugins = slices.Clone(r.Plugins)
	r.Fields = slices.Clone(r.Fields)
	return r
}

// ProjectDirs are the project skills folders under root, primary first.
func (r Runtime) ProjectDirs(root string) []string { return join(root, r.Project) }

// UserDirs are the user skills folders under home, primary first.
func (r Runtime) UserDirs(home string) []string { return join(home, r.User) }

// PluginPatterns are the glob patterns of plugin skills folders under home.
func (r Runtime) PluginPatterns(home string) []string { return join(home, r.Plugins) }

// PluginDirs expands PluginPatterns: the plugin skills folders that exist,
// sorted within each pattern.
func (r Runtime) PluginDirs(home string) ([]string, error) {
	var out []string
	for _, p := range r.PluginPatterns(home) {
		matches, err := filepath.Glob(p)
		if err != nil {
			return nil, fmt.Errorf("plugin folders of %s: %w", r.Name, err)
		}
		sort.Strings(matches)
		out = append(out, matches...)
	}
	return out, nil
}

func join(base string, rels []string) []string {
	out := make([]string, len(rels))
	for i, rel := range rels {
		out[i] = filepath.Join(base, filepath.FromSlash(rel))
	}
	return out
}

// Honours reports whether the runtime acts on a frontmatter field.
func (r Runtime) Honours(field string) bool { return slices.Contains(r.Fields, field) }

// Ignored lists the fields of present that the runtime does not honour,
// in the order given: the settings a skill's author would lose there.
func (r Runtime) Ignored(present []string) []string {
	var out []string
	for _, f := range present {
		if !r.Honours(f) {
			out = append(out, f)
		}
	}
	return out
}

// HonouredByAny reports whether some runtime of the table acts on a
// frontmatter field. Fields none honours (version, tags, priority) are
// packaging metadata: no runtime loses anything by ignoring them.
func HonouredByAny(field string) bool {
	for _, r := range table {
		if r.Honours(field) {
			return true
		}
	}
	return false
}

// Location is one skills folder a runtime reads.
type Location struct {
	Scope Scope  `json:"scope"`
	Dir   string `json:"dir"`
}

// Locations are every folder the runtime reads for a project at root and
// a user at home, in priority order: project folders, user folders, then
// plugin folders. A folder reached twice (goose reads .agents/skills in
// the project and in a home that is the project) is listed once, at its
// first place.
func (r Runtime) Locations(root, home string) ([]Location, error) {
	var out []Location
	seen := map[string]bool{}
	add := func(scope Scope, dirs []string) {
		for _, d := range dirs {
			key := filepath.Clean(d)
			if !seen[key] {
				seen[key] = true
				out = append(out, Location{Scope: scope, Dir: d})
			}
		}
	}
	add(ScopeProject, r.ProjectDirs(root))
	add(ScopeUser, r.UserDirs(home))
	plugins, err := r.PluginDirs(home)
	if err != nil {
		return nil, err
	}
	add(ScopePlugin, plugins)
	return out, nil
}
