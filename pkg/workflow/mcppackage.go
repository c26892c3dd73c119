package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/opencontainers/go-digest"
	"github.com/stax-dev/stax/internal/regularfile"
	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/agent"
	"github.com/stax-dev/stax/pkg/cache"
	"github.com/stax-dev/stax/pkg/declaration"
	"github.com/stax-dev/stax/pkg/discover"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/install"
	"github.com/stax-dev/stax/pkg/lock"
	"github.com/stax-dev/stax/pkg/mcpserver"
	"github.com/stax-dev/stax/pkg/merge"
	"github.com/stax-dev/stax/pkg/resolve"
	"github.com/stax-dev/stax/pkg/scratch"
	"github.com/stax-dev/stax/pkg/staxyaml"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/trust"
	"github.com/stax-dev/stax/pkg/trustpolicy"
)

// servedDirName is the directory of $STAX_HOME that holds the packages
// stax mcp serves, each extracted once into a directory named by its
// digest, which nothing writes after: a package's digest names its bytes.
const servedDirName = "served"

// servedRecordName is the file, in a package's directory, that says what
// was extracted: each skill's files, hashed as they were written, so that
// the server serves their digests without reading them again.
const servedRecordName = ".stax-served.json"

// servedStagingPrefix starts the name of the directory a package is
// extracted in, beside its own; the next extraction beside it removes one
// a killed server left.
const servedStagingPrefix = layers.StagingPrefix + "served-"

// servedSet is what stax mcp serves of its packages: their directories,
// highest priority first, and what each skill's package is.
type servedSet struct {
	folders   []agent.Location
	installed map[string]*mcpserver.Installed // by skill directory
	// written are the skills this process has just extracted, indexed
	// as they were written, by skill directory, until the server lists
	// them (see takeWritten).
	written map[string]*mcpserver.Written
}

// same reports whether s and o serve the same packages in the same order,
// as the trust policy has them: one that now requires a package to
// verify refuses its skills whose files changed, and a new signer is
// the provenance's.
func (s *servedSet) same(o *servedSet) bool {
	return slices.Equal(s.folders, o.folders) && maps.EqualFunc(s.installed, o.installed, func(a, b *mcpserver.Installed) bool {
		return a.Require == b.Require && a.Signer == b.Signer
	})
}

// servedPackages is what ServeMCP serves in place of the runtime's
// folders: the packages of opts, resolved again on each Refresh.
type servedPackages struct {
	env  *Env
	opts ServeMCPOptions
	mu   sync.Mutex
	set  *servedSet
}

// declarations are what opts serves: the references of Packages, or the
// install.sources of File, relative to its directory.
func (p *servedPackages) declarations() ([]declaration.Declaration, string, error) {
	if p.opts.File == "" {
		decls, err := p.env.declarations(p.opts.Packages, ".", true)
		return decls, ".", err
	}
	data, err := regularfile.ReadFile(p.opts.File, staxyaml.MaxFileSize)
	if err != nil {
		return nil, "", errdefs.MarkLocal(fmt.Errorf("read %s: %w", p.opts.File, err))
	}
	def, err := staxyaml.Parse(p.opts.File, data)
	if err != nil {
		return nil, "", err
	}
	if def.Install == nil || len(def.Install.Sources) == 0 {
		return nil, "", errdefs.Invalid(fmt.Errorf("%s declares no install.sources to serve: add one with stax install PACKAGE", p.opts.File))
	}
	decls, err := staxyaml.Declarations(def.Install.Sources, p.opts.File, false)
	if err != nil {
		return nil, "", errdefs.Invalid(err)
	}
	return decls, filepath.Dir(p.opts.File), nil
}

// load resolves the packages, admits them by the trust policy, as pull
// does, extracts each one not extracted yet, and stores them. The store
// goes on beside what the caller makes of the set (a server's first
// listing): stored waits for it, and returns its failure.
func (p *servedPackages) load(ctx context.Context) (set *servedSet, stored func() error, err error) {
	decls, dir, err := p.declarations()
	if err != nil {
		return nil, nil, err
	}
	home, err := store.HomeFrom(p.env.getenv)
	if err != nil {
		return nil, nil, err
	}
	git, err := p.env.gitCache()
	if err != nil {
		return nil, nil, err
	}
	pkgs := cache.New(p.env.Opener, p.env.Progress)
	ropts := resolve.Options{Source: pkgs, Limits: p.opts.Limits, Git: &resolve.GitOptions{Cache: git}}
	graph, signers, err := p.env.resolveTrusted(ctx, decls, dir, ropts, p.opts.Verify)
	if err != nil {
		pkgs.Close()
		return nil, nil, err
	}
	if set, err = p.extractAll(ctx, home, pkgs, graph, signers); err != nil {
		graph.Close()
		pkgs.Close()
		return nil, nil, err
	}
	done := make(chan error, 1)
	go func() {
		_, err := pkgs.Store(ctx, graph, p.env.transferOptions(p.opts.Limits.MaxSize))
		graph.Close()
		pkgs.Close()
		done <- err
	}()
	return set, sync.OnceValue(func() error { return <-done }), nil
}

// extractAll extracts the packages of graph, each once, in its folder
// under home, and says what the server is to know of their skills.
func (p *servedPackages) extractAll(ctx context.Context, home string, pkgs *cache.Packages, graph *resolve.Graph, signers map[digest.Digest]string) (*servedSet, error) {
	policy, perr := trust.LoadHomeFrom(p.env.getenv)
	set := &servedSet{installed: map[string]*mcpserver.Installed{}, written: map[string]*mcpserver.Written{}}
	// A later package wins a skill's directory (see merge.Merge), and an
	// earlier folder shadows a later one (see discover.List). A package
	// reached again, under another reference, is served once, with the
	// reference that wins as its provenance, and held to the strictest
	// rule of the trust policy among them, as with each alone. A
	// verification that admitted every package under require holds their
	// skills so too.
	required := map[digest.Digest]bool{}
	verifyRequire := p.opts.Verify.requires()
	for _, n := range graph.Order {
		if verifyRequire || perr != nil || policy.Rule(trustpolicy.ScopeName(lock.Key(n))).Mode == trustpolicy.ModeRequire {
			required[n.Digest] = true
		}
	}
	served := map[digest.Digest]bool{}
	for _, n := range slices.Backward(graph.Order) {
		if served[n.Digest] {
			continue
		}
		served[n.Digest] = true
		folder := agent.Location{Scope: agent.ScopeProject, Dir: filepath.Join(home, servedDirName, n.Digest.Algorithm().String(), n.Digest.Encoded())}
		key := lock.Key(n)
		require := required[n.Digest]
		installed := func(in *install.InstalledSkill, written bool) *mcpserver.Installed {
			return &mcpserver.Installed{
				Package: key, Version: n.Package.Config.Version, Digest: n.Digest.String(), Signer: signers[n.Digest],
				Require: require, Files: recordedFiles(*in), Written: written,
			}
		}
		// As for its files (see mcpserver.Installed.Written): a skill
		// whose package must verify is read from its folder.
		var index func(*install.InstalledSkill) *mcpserver.Installed
		if !require {
			index = func(in *install.InstalledSkill) *mcpserver.Installed { return installed(in, true) }
		}
		x, err := p.extract(ctx, folder, n, pkgs, index)
		if err != nil {
			return nil, err
		}
		set.folders = append(set.folders, folder)
		for path, in := range x.skills {
			skillDir := filepath.Join(folder.Dir, path)
			if is, ok := x.indexed[path]; ok {
				set.installed[skillDir], set.written[skillDir] = is.rec, is.written
				continue
			}
			set.installed[skillDir] = installed(in, x.wroteNow)
		}
	}
	return set, nil
}

// extracted is what extract did of a package.
type extracted struct {
	skills map[string]*install.InstalledSkill
	// wroteNow says that this call wrote the skills: the record then says
	// what the folder holds, as a walk of it would (see
	// mcpserver.Installed.Written).
	wroteNow bool
	// indexed are the skills written and indexed, by path, with index;
	// nil when not written.
	indexed map[string]indexedSkill
}

// extract makes folder hold the skills of n, as pull -o writes them,
// with the record of their files, unless it does already; a server that
// extracted it meanwhile is as good. With index, each skill written is
// indexed as the server's first Refresh would, with the record index
// makes of it, as it is written.
func (p *servedPackages) extract(ctx context.Context, folder agent.Location, n *resolve.Node, pkgs *cache.Packages, index func(*install.InstalledSkill) *mcpserver.Installed) (extracted, error) {
	dir := folder.Dir
	if skills, err := readServed(dir); err == nil {
		return extracted{skills: skills}, nil
	}
	var x extracted
	fill := func(out string) error {
		w := newServedWork(p.opts.Discover.Runtime, folder, out, index)
		skills, err := install.WriteFolderFiles(ctx, out, winnerSkills(merge.Merge([]*resolve.Node{n}), pkgs, p.opts.Limits, false), p.env.Concurrency, w.add)
		record, werr := w.wait()
		if err != nil {
			return err
		}
		if werr != nil {
			return werr
		}
		x = extracted{skills: skills, wroteNow: true, indexed: w.indexed}
		return errdefs.MarkLocal(os.WriteFile(filepath.Join(out, servedRecordName), record, 0o444))
	}
	var err error
	if _, serr := os.Lstat(dir); errors.Is(serr, fs.ErrNotExist) {
		err = scratch.Stage(dir, servedStagingPrefix, fill)
	} else {
		err = scratch.Replace(dir, servedStagingPrefix, fill) // a record that does not read: extracted again
	}
	if err != nil {
		if skills, rerr := readServed(dir); rerr == nil {
			return extracted{skills: skills}, nil
		}
		return extracted{}, err
	}
	// The record just written says what skills do: not read again.
	return x, nil
}

// readServed reads the record of the package extracted in dir.
func readServed(dir string) (map[string]*install.InstalledSkill, error) {
	f, err := os.Open(filepath.Join(dir, servedRecordName))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out map[string]*install.InstalledSkill
	if err := json.NewDecoder(f).Decode(&out); err != nil {
		return nil, fmt.Errorf("%s: %w", f.Name(), err)
	}
	for path, in := range out {
		if in == nil || !filepath.IsLocal(path) {
			return nil, fmt.Errorf("%s: skill %q is not a directory of its own", f.Name(), path)
		}
	}
	return out, nil
}

func (p *servedPackages) current() *servedSet {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.set
}

func (p *servedPackages) folders() []agent.Location { return p.current().folders }

// takeWritten gives the skills this process extracted and indexed, once:
// a later listing reads their folders, which may have changed since.
func (p *servedPackages) takeWritten() map[string]*mcpserver.Written {
	p.mu.Lock()
	defer p.mu.Unlock()
	w := p.set.written
	p.set.written = nil
	return w
}

func (p *servedPackages) installedOf(l *discover.Listing) (map[string]*mcpserver.Installed, []string) {
	return p.current().installed, nil
}

// poll resolves the packages again every opts.Refresh until ctx ends,
// and has the server read them again when the packages change: a tag or
// a version range now names another.
func (p *servedPackages) poll(ctx context.Context, refresh func() error) error {
	after := p.opts.After
	if after == nil {
		after = time.After
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-after(p.opts.Refresh):
		}
		set, stored, err := p.load(ctx)
		if err == nil {
			err = stored()
		}
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			p.env.warnf("resolving the packages again, the server serves them as they were: %v", err)
			continue
		}
		if set.same(p.current()) {
			continue
		}
		p.mu.Lock()
		p.set = set
		p.mu.Unlock()
		if err := refresh(); err != nil {
			p.env.warnf("reading the packages again: %v", err)
		}
	}
}
