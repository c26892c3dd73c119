package checkout

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"regexp"
	"strings"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/errdefs"
)

// Format is the tool whose marketplace file a marketplace is read from.
type Format string

const (
	ClaudeCode Format = "claude-code"
	Codex      Format = "codex"
	Copilot    Format = "copilot"
)

// marketplaceFiles are where each format keeps its marketplace, relative
// to the marketplace root (the repository, or SUBDIR), and where a
// plugin keeps its manifest, relative to the plugin's folder, in the
// order they are read.
var marketplaceFiles = []struct {
	format    Format
	file      string
	manifests []string
}{
	{ClaudeCode, ".claude-plugin/marketplace.json", []string{".claude-plugin/plugin.json"}},
	{Codex, ".agents/plugins/marketplace.json", []string{".codex-plugin/plugin.json"}},
	{Copilot, ".github/plugin/marketplace.json", []string{"plugin.json", ".github/plugin/plugin.json", ".claude-plugin/plugin.json"}},
}

// Marketplace is a catalog of plugins a repository publishes.
type Marketplace struct {
	Format Format
	// Name is how Claude Code users name it: NAME@MARKETPLACE.
	Name string
	// File is the marketplace file, relative to the checkout.
	File    string
	Plugins []Plugin
}

// Plugin is one plugin of a marketplace.
type Plugin struct {
	Name        string
	Description string
	// Dir is the plugin's folder in the checkout, for a plugin of this
	// repository; empty for one elsewhere.
	Dir string
	// Remote is where a plugin of another repository is, for the git
	// layer to fetch; nil for one of this repository.
	Remote *GitSource
	// Unsupported says why stax cannot fetch the plugin (an npm
	// package), when neither Dir nor Remote is set.
	Unsupported string

	marketplace *Marketplace
	entry       pluginEntry
	// invalid is why the entry cannot be used.
	invalid error
}

// GitSource is a plugin's repository, as its marketplace names it. It
// never holds credentials: a URL with any is refused when read.
type GitSource struct {
	// URL is a plain git URL: https://HOST/PATH, ssh://[USER@]HOST/PATH
	// or git://HOST/PATH.
	URL string
	// Path is the plugin's folder in that repository, "" for its root.
	Path string
	// Ref is the tag or branch the marketplace names, SHA the commit;
	// either may be empty.
	Ref, SHA string
}

// pluginEntry is a plugin as the three formats write it: the fields
// stax reads, the others left alone.
type pluginEntry struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Source      json.RawMessage `json:"source"`
	// Strict false (Claude Code) makes the entry the plugin's whole
	// definition: its plugin.json, if any, is not read.
	Strict     *bool           `json:"strict"`
	Skills     json.RawMessage `json:"skills"`
	Commands   json.RawMessage `json:"commands"`
	Agents     json.RawMessage `json:"agents"`
	Hooks      json.RawMessage `json:"hooks"`
	MCPServers json.RawMessage `json:"mcpServers"`
}

type marketplaceJSON struct {
	Name     string `json:"name"`
	Metadata struct {
		PluginRoot string `json:"pluginRoot"`
	} `json:"metadata"`
	Plugins []pluginEntry `json:"plugins"`
}

// sourceObject is a plugin's source written as an object: local (Codex),
// github, url, git-subdir, npm.
type sourceObject struct {
	Source  string `json:"source"`
	Path    string `json:"path"`
	Repo    string `json:"repo"`
	URL     string `json:"url"`
	Ref     string `json:"ref"`
	SHA     string `json:"sha"`
	Package string `json:"package"`
}

// readMarketplaces reads the marketplaces at dir, in the order of
// marketplaceFiles: those that can be read, and the error of the first
// that cannot.
func (t *tree) readMarketplaces(dir string) (out []*Marketplace, unreadable error) {
	for _, f := range marketplaceFiles {
		file := path.Join(dir, f.file)
		var raw marketplaceJSON
		if err := t.readJSON(file, &raw); errors.Is(err, fs.ErrNotExist) {
			continue
		} else if err != nil {
			unreadable = cmp.Or(unreadable, err)
			continue
		}
		m := &Marketplace{Format: f.format, Name: raw.Name, File: file}
		first := map[string]int{}
		for _, e := range raw.Plugins {
			p, err := readPlugin(dir, raw.Metadata.PluginRoot, e)
			if err != nil {
				// Refused when chosen: the other plugins stay usable, as
				// Claude Code and Codex skip an entry they cannot read.
				p.invalid = errdefs.Invalid(fmt.Errorf("%s: plugin %q: %w", file, e.Name, err))
			}
			if i, dup := first[e.Name]; dup {
				// The first is the one found by name: which of the two the
				// marketplace means cannot be told.
				m.Plugins[i].invalid = errdefs.Invalid(fmt.Errorf("%s lists plugin %q twice: which one is meant cannot be told", file, e.Name))
			} else {
				first[e.Name] = len(m.Plugins)
			}
			p.marketplace = m
			m.Plugins = append(m.Plugins, p)
		}
		out = append(out, m)
	}
	return out, unreadable
}

// readPlugin reads one entry of a marketplace whose root is dir.
func readPlugin(dir, pluginRoot string, e pluginEntry) (Plugin, error) {
	p := Plugin{Name: e.Name, Description: e.Description, entry: e}
	if err := layers.CheckName(e.Name); err != nil {
		return p, err
	}
	var rel string
	if err := json.Unmarshal(e.Source, &rel); err == nil {
		if pluginRoot != "" && !strings.HasPrefix(rel, "./") && !strings.HasPrefix(rel, "../") {
			rel = path.Join(pluginRoot, rel)
		}
		p.Dir, err = join(dir, rel)
		return p, err
	}
	var src sourceObject
	if err := json.Unmarshal(e.Source, &src); err != nil {
		return p, errors.New("source is neither a path nor an object")
	}
	var err error
	switch src.Source {
	case "local":
		p.Dir, err = join(dir, src.Path)
	case "github":
		if !githubRepo.MatchString(src.Repo) || strings.Contains(src.Repo, "..") {
			return p, fmt.Errorf("source repo %q is not OWNER/REPO", src.Repo)
		}
		p.Remote, err = gitSource("https://github.com/"+src.Repo, "", src)
	case "url":
		p.Remote, err = gitSource(src.URL, "", src)
	case "git-subdir":
		p.Remote, err = gitSource(src.URL, src.Path, src)
	case "npm":
		p.Unsupported = fmt.Sprintf("it is the npm package %q, and stax fetches plugins from git repositories only", src.Package)
	default:
		p.Unsupported = fmt.Sprintf("its source is of the kind %q, which stax does not know", src.Source)
	}
	return p, err
}

var (
	githubRepo = regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$`)
	gitRef     = regexp.MustCompile(`^[A-Za-z0-9_.][A-Za-z0-9_./+-]*$`)
	gitSHA     = regexp.MustCompile(`^([0-9a-f]{40}|[0-9a-f]{64})$`)
)

// gitSource checks what a marketplace says of a plugin's repository:
// https, ssh or git URLs only (no file, no http, no transport that runs
// a command), no credentials, a path in the repository through the one
// safe-name rule, a ref git cannot read as an option, a full commit.
func gitSource(raw, subdir string, src sourceObject) (*GitSource, error) {
	u, err := url.Parse(raw)
	if err != nil {
		// Not quoted: where its credentials are cannot be told.
		return nil, errors.New("source url is not a URL of a git repository: it does not parse")
	}
	shown := withoutCredentials(u).String()
	if u.Host == "" || strings.HasPrefix(u.Host, "-") || u.Opaque != "" {
		return nil, fmt.Errorf("source url %q is not a URL of a git repository", shown)
	}
	switch u.Scheme {
	case "https", "git":
		if u.User != nil {
			return nil, errors.New("source url holds credentials: a marketplace names a repository, the user's git authenticates")
		}
	case "ssh":
		if _, set := u.User.Password(); set {
			return nil, errors.New("source url holds a password: a marketplace names a repository, the user's git authenticates")
		}
		// ssh would read a user "-oProxyCommand=…" as an option.
		if strings.HasPrefix(u.User.Username(), "-") {
			return nil, fmt.Errorf("source url %q: its user starts with \"-\"", shown)
		}
	default:
		return nil, fmt.Errorf("source url %q: only https, ssh and git URLs are followed", shown)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("source url %q: a repository URL has no query or fragment", shown)
	}
	g := &GitSource{URL: u.String(), Ref: src.Ref, SHA: src.SHA}
	if g.Ref != "" && (!gitRef.MatchString(g.Ref) || strings.Contains(g.Ref, "..")) {
		return nil, fmt.Errorf("source ref %q is not a tag or branch name", g.Ref)
	}
	if g.SHA != "" && !gitSHA.MatchString(g.SHA) {
		return nil, fmt.Errorf("source sha %q is not a full commit", g.SHA)
	}
	if subdir != "" {
		if g.Path, err = join(".", subdir); err != nil {
			return nil, fmt.Errorf("source path: %w", err)
		}
		for seg := range strings.SplitSeq(g.Path, "/") {
			if err := layers.CheckName(seg); err != nil && g.Path != "." {
				return nil, fmt.Errorf("source path %q: %w", subdir, err)
			}
		}
		if g.Path == "." {
			g.Path = ""
		}
	}
	return g, nil
}

// withoutCredentials is u as stax may show or record it: without its
// user information, which may be a token (https://TOKEN@host), but for an
// ssh URL's user name, the account that is no secret (git@github.com);
// and without its query, where some servers take a token.
func withoutCredentials(u *url.URL) *url.URL {
	c := *u
	switch {
	case c.User == nil:
	case c.Scheme == "ssh" || c.Scheme == "git+ssh":
		c.User = url.User(c.User.Username())
	default:
		c.User = nil
	}
	c.RawQuery, c.ForceQuery = "", false
	return &c
}
