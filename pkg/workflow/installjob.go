package workflow

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/cache"
	"github.com/stax-dev/stax/pkg/declaration"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/gitpackage"
	"github.com/stax-dev/stax/pkg/hiddentext"
	"github.com/stax-dev/stax/pkg/install"
	"github.com/stax-dev/stax/pkg/lock"
	"github.com/stax-dev/stax/pkg/merge"
	"github.com/stax-dev/stax/pkg/resolve"
	"github.com/stax-dev/stax/pkg/scratch"
	"github.com/stax-dev/stax/pkg/transfer"
	"github.com/stax-dev/stax/pkg/trust"
	"github.com/stax-dev/stax/pkg/trustpolicy"
	"github.com/stax-dev/stax/pkg/warning"
)

// installRequest is an install of layered packages into the folders of a
// placement. The zero value of each field but Sources, ProjectDir and
// Placement is a usable default.
type installRequest struct {
	// Sources are the declarations installed, relative to ProjectDir;
	// later ones win.
	Sources    []declaration.Declaration
	ProjectDir string
	// Limits bound every package and layer read; the zero value is the
	// defaults.
	layers.Limits
	// Frozen is the lock a frozen install follows exactly (see
	// lock.ReadFrozen); nil for an install that writes stax.lock.
	Frozen *lock.Lock
	// Pins fix references to digests in an install that writes stax.lock,
	// and PinTags give the tags they were resolved through (see
	// resolve.Options): an update of some sources keeps the others at
	// their locked digests.
	Pins    map[string]digest.Digest
	PinTags map[string]string
	// GitLocked fix git sources to the commits stax.lock holds, by
	// reference, in an install that writes it, as Pins fix registry
	// sources to their digests.
	GitLocked map[string]gitpackage.Locked
	// Review, when set, is shown the resolved packages and the skills
	// that win before anything is fetched or written; proceed false stops
	// the install there, with no outcome: the dry run's plan, update's
	// comparison with stax.lock.
	Review func(g *resolve.Graph, merged *merge.Result) (proceed bool, err error)
	// Verify is the signature check, and Policy the project's trust
	// policy laid over the user's.
	Verify Verification
	Policy *trustpolicy.Policy
	// Copy are the options of storing the packages (progress, concurrency).
	Copy      transfer.Options
	Placement *install.Placement
	// KeepLock leaves stax.lock as it is: a one-off install of sources the
	// project does not declare.
	KeepLock bool
	// Files are written in the same transaction as stax.lock and the
	// folders (see install.Options.Files): the project's stax.yaml, when
	// the install changes it.
	Files   []install.LockFile
	Force   bool
	LockDir string
	// AllowHiddenText installs skills that hold characters reviewers
	// cannot see (see package hiddentext); without it such a skill fails
	// the install as a failed precondition, naming the file and line.
	AllowHiddenText bool
	// Strict refuses a git source's skill that breaks a content rule,
	// which is otherwise a warning.
	Strict bool
}

// installed is what installGraph did.
type installed struct {
	// Graph is the resolved packages; their configs' skill records have
	// no descriptions, which an install drops.
	Graph  *resolve.Graph
	Merged *merge.Result
	*install.Outcome
	// Warnings are about the placement and the merged skills: runtimes
	// that read each other's folders, names that differ only in case,
	// frontmatter a runtime ignores, skills a runtime finds twice.
	Warnings []warning.Warning
	// LockPath is the project's stax.lock.
	LockPath string
}

// installGraph is the install job: it resolves the packages of req,
// merges them, checks them against the trust policy, installs the
// winners into every folder of the placement as one transaction with
// stax.lock while the packages are stored in the local store, and
// registers the project as a root of the store (see storeRootsDir). A
// failure of a frozen install to resolve or fetch what the lock pins is
// unresolved (exit 4). When req.Review stops it, the result has no
// Outcome. Close the graph of the result.
func (e *Env) installGraph(ctx context.Context, req installRequest) (_ *installed, err error) {
	frozen := req.Frozen != nil
	// What is resolved is kept in the local store through the same
	// packages: the layers fetched ahead, then the graph stored. They are
	// released when the install ends, the store's lock with them.
	pkgs := cache.New(e.Opener, req.Copy.Progress)
	defer pkgs.Close()
	graph, err := e.resolveSources(ctx, req, pkgs)
	if err != nil {
		return nil, frozenError(frozen, err)
	}
	defer func() {
		if err != nil {
			graph.Close()
		}
	}()
	if err := chooseSkills(graph, req.Sources); err != nil {
		return nil, err
	}
	if frozen {
		if err := req.Frozen.Check(req.Sources, graph); err != nil {
			return nil, errdefs.Resolution(err)
		}
	}
	merged := merge.Merge(graph.Order)
	out := &installed{Graph: graph, Merged: merged, LockPath: filepath.Join(req.ProjectDir, lock.FileName)}
	if req.Review != nil {
		proceed, err := req.Review(graph, merged)
		if err != nil || !proceed {
			return out, err
		}
	}
	outcomes, err := e.enforce(ctx, trustPackages(graph), req.Verify, req.Policy, req.Frozen.VerifiedDigests(), req.Limits)
	if err != nil {
		return nil, err
	}
	// The store's lock before the folders': see LockProject.
	if err := pkgs.LockStore(ctx, graph); err != nil {
		return nil, frozenError(frozen, err)
	}
	// Nothing an install does or says uses a skill's description, and in
	// a large library they are a third of what it holds a skill.
	for _, n := range graph.Order {
		n.Package.Config.DropDescriptions()
	}
	if frozen {
		if err := req.Frozen.CheckSkills(merged); err != nil {
			return nil, errdefs.Resolution(err)
		}
	}
	if out.Outcome, err = e.writeWinners(ctx, req, pkgs, graph, merged, trust.Signers(outcomes)); err != nil {
		return nil, err
	}
	// With the store's lock still held, which stax store prune reads the
	// roots under: a prune sees the packages stored with the project
	// that keeps them, or neither.
	e.noteStoreRoot(req.ProjectDir)
	out.Warnings = append(install.Overlaps(req.Placement), caseWarnings(merged)...)
	for _, t := range req.Placement.Targets {
		out.Warnings = append(out.Warnings, install.IgnoredFields(t.Dir, merged.Paths(), t.Runtimes)...)
	}
	out.Warnings = append(out.Warnings, install.SeenTwice(req.Placement, merged.Paths())...)
	out.Warnings = append(out.Warnings, gitWarnings(graph)...)
	return out, nil
}

// resolveSources resolves the sources of req. An install that will store
// what it resolves has each layer fetched with its package's config, but
// for a package the trust policy may refuse: nothing of it is written
// before it is admitted.
func (e *Env) resolveSources(ctx context.Context, req installRequest, pkgs *cache.Packages) (*resolve.Graph, error) {
	ropts := resolve.Options{Source: pkgs, Limits: req.Limits, Pins: req.Pins, PinTags: req.PinTags, Concurrency: req.Copy.Concurrency}
	if req.Frozen != nil {
		ropts.Pins = req.Frozen.Pins()
	}
	var err error
	if ropts.Git, err = e.gitOptions(req); err != nil {
		return nil, err
	}
	if req.Review == nil {
		require := req.Frozen.VerifiedDigests()
		mayRefuse := e.refusing(req.Verify, req.Policy)
		ropts.FetchLayers = func(d declaration.Declaration, manifest digest.Digest) bool {
			return !require[manifest] && !mayRefuse(d, manifest)
		}
	}
	return resolve.Resolve(ctx, req.Sources, req.ProjectDir, ropts)
}

// writeWinners stores the packages of graph while it installs the
// winners: each layer is extracted as soon as it is in the local store
// (see cache.Storing.ReadLayer), and nothing is committed before every
// package is stored. A failure to store them is the one
// reported, as when they were stored first: it stops the install. An
// install that fails on its own stops the store, whose packages it no
// longer needs, and reports its own failure.
func (e *Env) writeWinners(ctx context.Context, req installRequest, pkgs *cache.Packages, graph *resolve.Graph, merged *merge.Result, verified map[digest.Digest]string) (*install.Outcome, error) {
	frozen := req.Frozen != nil
	copyOpts := req.Copy
	copyOpts.MaxSize = req.MaxSize
	sctx, stopStore := context.WithCancel(ctx)
	defer stopStore()
	storing := pkgs.StartStore(sctx, graph, copyOpts)
	ictx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		if _, err := storing.Wait(); err != nil {
			cancel()
		}
	}()
	out, err := installStored(ictx, req, graph, merged, verified, storing)
	failedFirst := err != nil && ictx.Err() == nil
	if failedFirst {
		stopStore()
	}
	if _, storeErr := storing.Wait(); storeErr != nil && !(failedFirst && errors.Is(storeErr, context.Canceled)) {
		return nil, frozenError(frozen, storeErr)
	}
	return out, err
}

// installStored installs the winners of graph, merged, whose packages
// storing is storing. Each skill is read from its layer straight into the
// folder's staging directory, and only if the folder does not hold it
// already.
func installStored(ctx context.Context, req installRequest, graph *resolve.Graph, merged *merge.Result, verified map[digest.Digest]string, storing *cache.Storing) (*install.Outcome, error) {
	scratch.Sweep("install") // what an older stax, killed, left in $TMPDIR
	skills := winnerSkills(merged, storedLayers{storing}, req.Limits, req.AllowHiddenText)
	iopts := install.Options{Root: req.Placement.Root, Workspace: req.Placement.Workspace, Portable: req.Placement.Portable(), Force: req.Force, LockDir: req.LockDir, Records: req.Placement.Records}
	if req.Frozen == nil && !req.KeepLock {
		// Made each time it is written rather than held while the skills
		// are: it lists every skill.
		write := func(w io.Writer) error {
			l := lock.New(req.Sources, graph, merged)
			for d, signer := range verified {
				l.RecordVerified(d, signer)
			}
			return l.Encode(w)
		}
		iopts.Files = []install.LockFile{{Path: filepath.Join(req.ProjectDir, lock.FileName), Write: write}}
	}
	iopts.Files = append(iopts.Files, req.Files...)
	staged, err := install.Stage(ctx, req.Placement.Dirs(), skills, iopts)
	if err != nil {
		return nil, err
	}
	defer staged.Close()
	// Every folder is staged, each layer read once it was in the local
	// store, maybe before its package; none is committed before every
	// package is.
	if _, err := storing.Wait(); err != nil {
		return nil, err
	}
	return staged.Commit()
}

// caseWarnings are merge.Result.CaseWarnings as warnings of the install.
func caseWarnings(m *merge.Result) []warning.Warning {
	out := []warning.Warning{}
	for _, msg := range m.CaseWarnings() {
		out = append(out, warning.Warning{Kind: "case-collision", Message: msg})
	}
	return out
}

// frozenError makes any resolution failure of a frozen install
// unresolved: a locked digest that cannot be fetched means the lock
// cannot be honoured. Content that does not match its digest stays data
// loss: the lock is right, the bytes served for it are not.
func frozenError(frozen bool, err error) error {
	if c := errdefs.Of(err); !frozen || c == errdefs.Unresolved || c == errdefs.DataLoss {
		return err
	}
	return errdefs.Reclassify(errdefs.Unresolved, fmt.Errorf("--frozen: %w", err))
}

// layerReader reads packages' skills layers: it calls read with n's
// layer, and returns read's error, or why the layer could not be had.
// It verifies the layer against its descriptor (see
// layers.ReadOptions.Verified): a layer that does not match its digest is
// explained (whose copy is corrupt, and the fix).
type layerReader interface {
	ReadLayer(ctx context.Context, n *resolve.Node, read func(io.Reader) error) error
}

// winnerSkills are the skills merged won, as install writes them, each
// read from its package's skills layer through layers, one install.Layer
// for each package: opened only when one of its skills must be written,
// bounded by limits, verified
// against its descriptor, size and digest, and, unless allowHidden,
// refused when a file holds characters reviewers cannot see (see package
// hiddentext). Install and pull -o write the winners through it alone.
func winnerSkills(merged *merge.Result, from layerReader, limits layers.Limits, allowHidden bool) []install.Skill {
	skills := make([]install.Skill, 0, len(merged.Skills))
	layerOf := map[*resolve.Node]*install.Layer{}
	for _, s := range merged.Skills {
		l := layerOf[s.From]
		if l == nil {
			l = nodeLayer(s.From, from, limits)
			if !allowHidden {
				l.Read.Inspect = hiddentext.LayerGuard
			}
			layerOf[s.From] = l
		}
		skills = append(skills, install.Skill{
			Path: s.Path, Layer: l,
			Package: lock.Key(s.From), PackageDigest: s.From.Digest, PackageVersion: s.From.Package.Config.Version, Digest: s.Digest,
		})
	}
	return skills
}

// nodeLayer is n's skills layer, read through from. Every layerReader
// verifies the layer as it hands it on (artifact.Package.OpenSkills under
// storedLayers and resolve.ReadLayer, store.TeeBlob under
// cache.Packages.ReadLayer), so the walk does not hash it again.
func nodeLayer(n *resolve.Node, from layerReader, limits layers.Limits) *install.Layer {
	l := &install.Layer{Name: n.Ref, Read: layers.ReadOptions{Limits: limits, Verified: true}}
	if n.Package.Skills != nil {
		l.Read.Digest = n.Package.Skills.Digest
	}
	l.Open = func(ctx context.Context, read func(io.Reader) error) error {
		if n.Package.Skills == nil {
			return errdefs.Precondition(fmt.Errorf("%s lists skills but has no skills layer", n.Ref))
		}
		return from.ReadLayer(ctx, n, read)
	}
	if r, ok := from.(layerWaiter); ok {
		l.Ready = func(ctx context.Context) error { return r.Ready(ctx, n) }
	}
	return l
}

// layerWaiter is a layerReader whose ReadLayer may wait for n's layer to
// arrive: Ready returns once it would not (see install.Layer.Ready).
type layerWaiter interface {
	Ready(ctx context.Context, n *resolve.Node) error
}

// storedLayers reads each package's layer from where it is, once
// storing (when not nil) has it in the local store (see
// cache.Storing.ReadLayer): an OCI layout's store does not check what it
// serves, so the layer is verified as it is read, as pull verifies it.
type storedLayers struct {
	storing *cache.Storing
}

// Ready returns once n's layer is in the local store: layers are
// extracted in the order they arrive, not in the graph's.
func (s storedLayers) Ready(ctx context.Context, n *resolve.Node) error {
	if s.storing == nil {
		return nil
	}
	return s.storing.LayerReady(ctx, n)
}

func (s storedLayers) ReadLayer(ctx context.Context, n *resolve.Node, read func(io.Reader) error) error {
	if s.storing == nil {
		return resolve.ReadLayer(ctx, n, n.Target, read)
	}
	return s.storing.ReadLayer(ctx, n, read)
}

// namingLayers reads layers through from, and names the package and
// layer of one that could not be had, as install.Layer names one that
// failed once read: pull -o says "extract REF (layer DIGEST): " of
// either.
type namingLayers struct {
	from layerReader
}

func (l namingLayers) ReadLayer(ctx context.Context, n *resolve.Node, read func(io.Reader) error) error {
	var reading bool
	err := l.from.ReadLayer(ctx, n, func(r io.Reader) error {
		reading = true
		return read(r)
	})
	if err != nil && !reading && n.Package.Skills != nil {
		return errdefs.With(layers.Class(err), fmt.Errorf("extract %s (layer %s): %w", n.Ref, n.Package.Skills.Digest, err))
	}
	return err
}
