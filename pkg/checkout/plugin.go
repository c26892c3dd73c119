package checkout

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/stax-dev/stax/internal/editdistance"
	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/termtext"
	"github.com/stax-dev/stax/pkg/warning"
)

// KindPluginNotInstalled is the kind of the warning that a plugin carries
// commands, agents, hooks or MCP servers, which stax does not install.
const KindPluginNotInstalled = "plugin-not-installed"

// findPlugin picks the plugin spec names (NAME or NAME@MARKETPLACE, as
// Claude Code writes it) among the marketplaces. A name in more than one
// marketplace file of the repository is the first's: they are one
// plugin described for several tools.
func findPlugin(ms []*Marketplace, spec string) (*Plugin, error) {
	name, market, scoped := strings.Cut(spec, "@")
	if err := layers.CheckName(market); scoped && err != nil {
		// stax.lock records the spec: a name it refuses to read back is
		// not written down.
		return nil, errdefs.Invalid(fmt.Errorf("plugin %q: the marketplace: %w", spec, err))
	}
	var names, markets []string
	for _, m := range ms {
		markets = append(markets, termtext.Escape(m.Name))
		if scoped && m.Name != market {
			continue
		}
		for i := range m.Plugins {
			if p := &m.Plugins[i]; p.Name == name {
				return p, p.invalid
			}
		}
		names = append(names, m.pluginNames()...)
	}
	switch {
	case len(ms) == 0:
		return nil, errdefs.Resolution(fmt.Errorf("plugin %q: the repository has no plugin marketplace (%s)", spec, marketplacePaths()))
	case scoped && len(names) == 0:
		return nil, errdefs.Resolution(fmt.Errorf("plugin %q: the repository has no marketplace %q; it has %s", spec, market, strings.Join(markets, ", ")))
	}
	return nil, errdefs.Resolution(fmt.Errorf("plugin %q is not in the marketplace%s: %s", spec, nearest(name, names), listed(names)))
}

// nearest is ", did you mean X?" for the word of words nearest typed, if
// one is near enough; the sentence it ends lists them all.
func nearest(typed string, words []string) string {
	if w := editdistance.Closest(typed, words); w != "" {
		return fmt.Sprintf(" (did you mean %q?)", w)
	}
	return ""
}

// pluginNames are the names of m's plugins that pass the name rule, the
// ones a message may list: a name that breaks it (a line feed that would
// forge a line of the message) is refused only when asked for.
func (m *Marketplace) pluginNames() []string {
	var names []string
	for _, p := range m.Plugins {
		if layers.CheckName(p.Name) == nil {
			names = append(names, p.Name)
		}
	}
	return names
}

// maxListed bounds the names a message lists: a marketplace may hold
// thousands of plugins, and the nearest is named besides.
const maxListed = 20

// listed is names for a message: the first maxListed, and how many more.
func listed(names []string) string {
	if len(names) <= maxListed {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:maxListed], ", "), len(names)-maxListed)
}

func marketplacePaths() string {
	var files []string
	for _, f := range marketplaceFiles {
		files = append(files, f.file)
	}
	return "looked for " + strings.Join(files, ", ")
}

// pluginManifest is a plugin.json: the fields stax reads.
type pluginManifest struct {
	Skills     json.RawMessage `json:"skills"`
	Commands   json.RawMessage `json:"commands"`
	Agents     json.RawMessage `json:"agents"`
	Hooks      json.RawMessage `json:"hooks"`
	MCPServers json.RawMessage `json:"mcpServers"`
}

// pluginSkills are the skills of p, a plugin of this repository: the
// paths its marketplace entry and its manifest list (each a skill, or a
// folder of skills), else its folder's skills/. The warning says once
// what of it stax does not install.
func (t *tree) pluginSkills(p *Plugin) ([]Skill, []warning.Warning, error) {
	if !t.isDir(p.Dir) {
		return nil, nil, errdefs.Invalid(fmt.Errorf("plugin %s: its folder %s is not in the repository", p.Name, p.Dir))
	}
	var man pluginManifest
	for _, f := range marketplaceFiles {
		if f.format != p.marketplace.Format || p.entry.Strict != nil && !*p.entry.Strict {
			continue
		}
		for _, name := range f.manifests {
			err := t.readJSON(path.Join(p.Dir, name), &man)
			if err == nil {
				break
			}
			if !errors.Is(err, fs.ErrNotExist) {
				return nil, nil, err
			}
		}
	}
	paths, err := stringOrList(p.entry.Skills)
	if err != nil {
		return nil, nil, errdefs.Invalid(fmt.Errorf("plugin %s: skills: %w", p.Name, err))
	}
	more, err := stringOrList(man.Skills)
	if err != nil {
		return nil, nil, errdefs.Invalid(fmt.Errorf("plugin %s: plugin.json: skills: %w", p.Name, err))
	}
	paths = append(paths, more...)
	if len(paths) == 0 {
		paths = []string{"skills"}
	}
	var skills []Skill
	for _, rel := range paths {
		dir, err := join(p.Dir, rel)
		if err != nil {
			return nil, nil, errdefs.Invalid(fmt.Errorf("plugin %s: skills: %w", p.Name, err))
		}
		found, err := t.skillsIn(dir, p.Name)
		if err != nil {
			return nil, nil, err
		}
		if len(found) == 0 && len(p.entry.Skills)+len(man.Skills) > 0 {
			return nil, nil, errdefs.Invalid(fmt.Errorf("plugin %s: skills: %s holds no skill", p.Name, rel))
		}
		skills = append(skills, found...)
	}
	return skills, t.notInstalled(p, man), nil
}

// notInstalled is the warning that p carries what stax does not
// install, named once; none when it carries only skills.
func (t *tree) notInstalled(p *Plugin, man pluginManifest) []warning.Warning {
	has := func(entry, manifest json.RawMessage, defaults ...string) bool {
		if set(entry) || set(manifest) {
			return true
		}
		return slices.ContainsFunc(defaults, func(d string) bool { return t.stat(path.Join(p.Dir, d)) != nil })
	}
	var kinds []string
	for _, k := range []struct {
		kind            string
		entry, manifest json.RawMessage
		defaults        []string
	}{
		{"commands", p.entry.Commands, man.Commands, []string{"commands"}},
		{"agents", p.entry.Agents, man.Agents, []string{"agents"}},
		{"hooks", p.entry.Hooks, man.Hooks, []string{"hooks/hooks.json"}},
		{"MCP servers", p.entry.MCPServers, man.MCPServers, []string{".mcp.json"}},
	} {
		if has(k.entry, k.manifest, k.defaults...) {
			kinds = append(kinds, k.kind)
		}
	}
	if len(kinds) == 0 {
		return nil
	}
	return []warning.Warning{{Kind: KindPluginNotInstalled, Message: artifact.NotInstalledWarning("plugin "+p.Name, kinds)}}
}

// set reports whether a field was given a value other than null.
func set(raw json.RawMessage) bool {
	return len(raw) > 0 && string(raw) != "null"
}

// stringOrList reads a field written as one path or a list of them.
func stringOrList(raw json.RawMessage) ([]string, error) {
	if !set(raw) {
		return nil, nil
	}
	var one string
	if err := json.Unmarshal(raw, &one); err == nil {
		return []string{one}, nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, errors.New("neither a path nor a list of paths")
	}
	return list, nil
}
