// Package mcpserver serves the skills an agent runtime would load over the
// Model Context Protocol, so that any MCP client gets them with stax's
// discovery order, shadowing, stateful load order and budget:
//
//   - a Skill tool whose description is the menu of skills, one
//     "- name: description" line each, and which returns a skill's text
//     when the model invokes it by name;
//   - a ListSkills tool for libraries too large for that menu, which also
//     names the skills that cannot load and why;
//   - every file of every skill as a resource, read on demand;
//   - log notifications for skills that cannot load, and a tools
//     list_changed notification when the menu changes on disk.
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/stax-dev/stax/pkg/agent"
	"github.com/stax-dev/stax/pkg/discover"
	"github.com/stax-dev/stax/pkg/render"
)

// DefaultInlineLimit is how many skills the Skill tool's description lists
// when Options.InlineLimit is zero. Past a few dozen, the menu crowds the
// model's tool schema budget; the rest are found with ListSkills.
const DefaultInlineLimit = 50

// Tool names, as clients call them.
const (
	SkillTool      = "Skill"
	ListSkillsTool = "ListSkills"
)

// Options configure a Server.
type Options struct {
	// Runtime is the agent runtime whose folders, priority order and
	// frontmatter support decide which skills are served.
	Runtime agent.Runtime
	// Project is the project directory the runtime runs in; Home the
	// user's home directory. Both absolute.
	Project string
	Home    string
	// Budget fits an invoked skill to a context budget; the zero Budget
	// is none.
	Budget render.Budget
	// InlineLimit is how many skills the Skill tool's description lists;
	// 0 means DefaultInlineLimit, a negative value no limit.
	InlineLimit int
	// Workspace is the value of ${STAX_WORKSPACE}; empty means Project.
	Workspace string
	// Version is the server version reported to clients; empty is "dev".
	Version string
	// Admit, when set, is asked before a skill is served and may refuse it
	// with the reason, which the client receives as a tool error: a trust
	// policy uses it to refuse a stateful skill whose files do not verify.
	Admit func(ctx context.Context, skillDir string) error
	// Installed, when set, says for the skills of a listing that stax
	// installed, by skill directory, what the record of their folder
	// says: the skills extension takes their digests and provenance from
	// it, with warnings for the records it could not read.
	Installed func(*discover.Listing) (map[string]*Installed, []string)
	// Folders, when set, are the folders skills are read from in place
	// of the runtime's, in priority order, as it returns them at each
	// Refresh: the packages stax mcp --package serves, extracted. They
	// are not watched: Poll says when to read them again.
	Folders func() []agent.Location
	// Written, when set, gives the skills this process has written and
	// indexed since the last Refresh (see IndexWritten), by directory,
	// each once: one listed is not read, its SKILL.md, files and entry
	// taken as they were made, that of a skill listed from
	// Installed.Written.
	Written func() map[string]*Written
	// Poll, with Folders, runs while clients are served and calls
	// refresh whenever the folders may have changed; nil never reads
	// them again.
	Poll func(ctx context.Context, refresh func() error) error
	// Logger receives the server's own messages (the skills that cannot
	// load, watch errors); nil discards them.
	Logger *slog.Logger
}

// Server is an MCP server of the skills a runtime sees. Its menu, tools
// and resources follow the skill folders: Refresh reads them again, and
// Watch calls Refresh when they change.
type Server struct {
	opts Options
	mcp  *mcp.Server

	// refreshing serializes Refresh: it compares what it reads with what
	// the last one registered.
	refreshing sync.Mutex

	mu        sync.Mutex // guards the fields below
	listing   *discover.Listing
	menu      string               // the Skill tool's description
	resources map[string]skillFile // by URI
	reported  map[string]bool      // problems already logged
	skills    *skillIndex          // what the skills extension serves

	lists     chan struct{} // a slot for each skills/list being answered
	cursorKey [32]byte      // signs skills/list cursors

	// onWatching, when set, is called once Watch has placed its first
	// watches: a change made after it is seen.
	onWatching func()
}

// New reads the runtime's skill folders and returns a server for them.
func New(opts Options) (*Server, error) {
	if opts.Runtime.Name == "" {
		return nil, errors.New("mcpserver: no runtime")
	}
	if !filepath.IsAbs(opts.Project) || !filepath.IsAbs(opts.Home) {
		return nil, fmt.Errorf("mcpserver: the project (%q) and home (%q) directories must be absolute", opts.Project, opts.Home)
	}
	if opts.InlineLimit == 0 {
		opts.InlineLimit = DefaultInlineLimit
	}
	if opts.Workspace == "" {
		opts.Workspace = opts.Project
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := &Server{opts: opts, resources: map[string]skillFile{}, reported: map[string]bool{},
		lists: make(chan struct{}, maxConcurrentLists), cursorKey: newCursorKey()}
	caps := &mcp.ServerCapabilities{
		//lint:ignore SA1019 log notifications carry the skills that cannot load (see logTo)
		Logging:   &mcp.LoggingCapabilities{},
		Tools:     &mcp.ToolCapabilities{ListChanged: true},
		Resources: &mcp.ResourceCapabilities{ListChanged: true},
	}
	caps.AddExtension(SkillsExtension, map[string]any{"directoryRead": true})
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "stax", Title: "stax skills", Version: opts.Version}, &mcp.ServerOptions{
		Instructions: "Skills are instructions for recurring tasks. When a task matches a skill listed in the " +
			SkillTool + " tool's description, call " + SkillTool + " with its name before starting, and follow what it returns. " +
			"A skill's files (scripts, references, assets) are resources under skill://NAME/.",
		Capabilities: caps,
	})
	if err := s.addSkillsMethods(); err != nil {
		return nil, err
	}
	s.mcp.AddReceivingMiddleware(s.replayProblems, validErrorData)
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name:  ListSkillsTool,
		Title: "List skills",
		Description: "List the skills available to the " + SkillTool + " tool, with their descriptions, " +
			"optionally only those matching a query; also names the skills that cannot load and why. " +
			"Use it when the " + SkillTool + " tool's description does not list every skill.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, s.listSkills)
	if err := s.Refresh(); err != nil {
		return nil, err
	}
	return s, nil
}

// MCP is the underlying SDK server, for transports this package does not
// set up.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Refresh reads the skill folders again. When the menu changes, the Skill
// tool is replaced and clients are sent tools/list_changed; when files
// come or go, resources/list_changed. Skills that newly fail to load are
// logged to clients.
func (s *Server) Refresh() error {
	s.refreshing.Lock()
	defer s.refreshing.Unlock()
	return s.refresh()
}

// refresh is Refresh, with s.refreshing held.
func (s *Server) refresh() error {
	dopts := discover.Options{Runtime: s.opts.Runtime, Project: s.opts.Project, Home: s.opts.Home}
	if s.opts.Folders != nil {
		dopts.Folders = s.opts.Folders()
	}
	prev := s.index()
	var written map[string]*Written
	if s.opts.Written != nil {
		written = s.opts.Written()
		dopts.Parsed = func(dir string) (discover.Skill, bool) {
			w, ok := written[dir]
			// A skill the index holds from its folder is read from it
			// again (see Written.stands), parsed: IndexWritten let go
			// of the parse of one it indexed.
			if !ok || prev.of(w.skill.Key, dir) != nil {
				return discover.Skill{}, false
			}
			return w.skill, true
		}
	}
	l, err := discover.List(dopts)
	if err != nil {
		return err
	}
	var installed map[string]*Installed
	var unrecorded []string
	if s.opts.Installed != nil {
		installed, unrecorded = s.opts.Installed(l)
	}
	files, unserved, taken, warnings := listFiles(l, installed, written, prev)
	warnings = append(warnings, unrecorded...)
	menu := s.describe(l)
	x, more := buildIndex(l, files, unserved, installed, taken, prev)
	warnings = append(warnings, more...)
	x.generation = nextGeneration(prev, x)

	s.mu.Lock()
	s.listing = l
	s.skills = x
	changedMenu := menu != s.menu
	s.menu = menu
	var gone []string
	for uri := range s.resources {
		if _, ok := files[uri]; !ok {
			gone = append(gone, uri)
		}
	}
	// A file edited in place changes its entry's digest: a host caching
	// skills/list is told, as for a file that came or went.
	var added []skillFile
	for uri, f := range files {
		if old, ok := s.resources[uri]; !ok || old.resource.MIMEType != f.resource.MIMEType || old.resource.Size != f.resource.Size || old.modTime != f.modTime {
			added = append(added, f)
		}
	}
	s.resources = files
	s.mu.Unlock()

	// The SDK sends the list_changed notifications, debounced, as tools
	// and resources are replaced.
	if changedMenu {
		s.addSkillTool(menu)
	}
	if len(gone) > 0 {
		s.mcp.RemoveResources(gone...)
	}
	// In any order: the SDK keeps resources by URI, and lists them sorted.
	for _, f := range added {
		s.mcp.AddResource(f.resource, s.readResource)
	}
	s.logNewProblems(append(problems(l), warnings...))
	return nil
}

// current is the listing of the last Refresh.
func (s *Server) current() *discover.Listing {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.listing
}

// Run serves one client on transport t, for example a StdioTransport,
// watching the skill folders, until the client goes or ctx ends; the end
// of ctx is not an error.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	stop := s.watchInBackground(ctx)
	err := s.mcp.Run(ctx, t)
	stop()
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// watchInBackground runs Watch until the returned function is called. A
// server that cannot watch (no inotify instances left) still serves, and
// says that it will not see changes.
func (s *Server) watchInBackground(ctx context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if s.opts.Folders != nil {
			if s.opts.Poll != nil {
				if err := s.opts.Poll(ctx, s.Refresh); err != nil {
					s.opts.Logger.Warn("not reading the packages again, so changes are not seen until a restart: " + err.Error())
				}
			}
			return
		}
		if err := s.Watch(ctx); err != nil {
			s.opts.Logger.Warn("not watching the skill folders, so changes are not seen until a restart: " + err.Error())
		}
	}()
	return func() {
		cancel()
		<-done
	}
}
