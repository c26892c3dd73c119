package install

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/hiddentext"
	"github.com/stax-dev/stax/pkg/lock"
	"github.com/stax-dev/stax/pkg/merge"
	"github.com/stax-dev/stax/pkg/resolve"
	"github.com/stax-dev/stax/pkg/scratch"
	"github.com/stax-dev/stax/pkg/semver"
	"github.com/stax-dev/stax/pkg/target"
	"github.com/stax-dev/stax/pkg/transfer"
	"github.com/stax-dev/stax/pkg/warning"
)

// Request is an install of layered packages into the folders of a
// placement. The zero value of each field but Sources, ProjectDir,
// Opener and Placement is a usable default.
type Request struct {
	// Sources are declarations as resolve.Resolve takes them, relative to
	// ProjectDir; later ones win.
	Sources []string
	// Ranges are the version ranges of Sources, by declaration (see
	// resolve.Options.Ranges).
	Ranges     map[string]*semver.Range
	ProjectDir string
	Opener     *target.Opener
	// MaxSize and MaxFiles bound every package and layer read.
	MaxSize  int64
	MaxFiles int
	// Frozen is the lock a frozen install follows exactly (see
	// lock.ReadFrozen); nil for an install that writes stax.lock.
	Frozen *lock.Lock
	// Pins fix references to digests in an install that writes stax.lock,
	// and PinTags give the tags they were resolved through (see
	// resolve.Options): an update of some sources keeps the others at
	// their locked digests.
	Pins    map[string]digest.Digest
	PinTags map[string]string
	// Plan, when set, is shown the resolved packages and the skills that
	// win before anything is fetched or written; proceed false stops the
	// install there, and Sources returns them with no Outcome.
	Plan func(g *resolve.Graph, merged *merge.Result) (proceed bool, err error)
	// Verify checks the resolved packages before anything is written, and
	// returns the digests a trusted signature verified; nil checks none.
	Verify func(g *resolve.Graph, require map[digest.Digest]bool) (verified map[digest.Digest]string, err error)
	// MayRefuse says whether Verify may refuse the package decl declares,
	// at manifest digest manifest, for its signature (with require nil);
	// nil: it refuses none. Such a package's layer is fetched only once
	// it is admitted; the others' come with their configs.
	MayRefuse func(decl string, manifest digest.Digest) bool
	// Copy are the options of storing the packages (progress, concurrency).
	Copy      transfer.Options
	Placement *Placement
	// KeepLock leaves stax.lock as it is: a one-off install of sources the
	// project does not declare.
	KeepLock bool
	// Files are written in the same transaction as stax.lock and the
	// folders (see Options.Files): the project's stax.yaml, when the
	// install changes it.
	Files   []LockFile
	Force   bool
	LockDir string
	// AllowHiddenText installs skills that hold characters reviewers
	// cannot see (see package hiddentext); without it such a skill fails
	// the install as a failed precondition, naming the file and line.
	AllowHiddenText bool
}

// Installed is what Sources did.
type Installed struct {
	// Graph is the resolved packages; their configs' skill records have
	// no descriptions, which an install drops.
	Graph  *resolve.Graph
	Merged *merge.Result
	*Outcome
	// Warnings are about the placement and the merged skills: runtimes
	// that read each other's folders, names that differ only in case,
	// frontmatter a runtime ignores, skills a runtime finds twice.
	Warnings []warning.Warning
	// LockPath is the project's stax.lock.
	LockPath string
}

// Sources resolves the packages of req, checks them, stores them in the
// local store, layers them, and installs the result into every folder of
// the placement as one transaction with stax.lock. A failure of a frozen
// install to resolve or fetch what the lock pins is unresolved (exit 4).
// Close the graph of the result.
func Sources(ctx context.Context, req Request) (*Installed, error) {
	frozen := req.Frozen != nil
	ropts := resolve.Options{Opener: req.Opener, MaxSize: req.MaxSize, MaxFiles: req.MaxFiles, Ranges: req.Ranges, Pins: req.Pins, PinTags: req.PinTags, Concurrency: req.Copy.Concurrency,
		Progress: req.Copy.Progress}
	if frozen {
		ropts.Pins = req.Frozen.Pins()
	}
	if req.Plan == nil {
		// An install that will store what it resolves has each layer
		// fetched with its package's config, but for a package Verify
		// may refuse: nothing of it is written before it is admitted.
		require := req.Frozen.VerifiedDigests()
		ropts.FetchLayers = func(decl string, manifest digest.Digest) bool {
			return !require[manifest] && (req.MayRefuse == nil || !req.MayRefuse(decl, manifest))
		}
	}
	graph, err := resolve.Resolve(ctx, req.Sources, req.ProjectDir, ropts)
	if err != nil {
		return nil, frozenError(frozen, err)
	}
	out, err := sources(ctx, req, graph)
	if err != nil {
		graph.Close()
		return nil, err
	}
	return out, nil
}

func sources(ctx context.Context, req Request, graph *resolve.Graph) (*Installed, error) {
	frozen := req.Frozen != nil
	if frozen {
		if err := req.Frozen.Check(req.Sources, graph); err != nil {
			return nil, errdefs.Resolution(err)
		}
	}
	if req.Plan != nil {
		proceed, err := req.Plan(graph, merge.Merge(graph.Order))
		if err != nil || !proceed {
			return &Installed{Graph: graph, LockPath: filepath.Join(req.ProjectDir, lock.FileName)}, err
		}
	}
	var verified map[digest.Digest]string
	if req.Verify != nil {
		var err error
		if verified, err = req.Verify(graph, req.Frozen.VerifiedDigests()); err != nil {
			return nil, err
		}
	}
	// The store's lock before the folders': see LockProject.
	if err := graph.LockStore(ctx, req.Opener); err != nil {
		return nil, frozenError(frozen, err)
	}
	copyOpts := req.Copy
	copyOpts.MaxSize = req.MaxSize
	// The packages are stored while the install prepares the folders, and
	// each layer is extracted as soon as its package is stored; nothing is
	// committed before all are. A failure to store them is the one
	// reported, as when they were stored first: it stops the install. An
	// install that fails on its own stops the store, whose packages it no
	// longer needs, and reports its own failure.
	sctx, stopStore := context.WithCancel(ctx)
	defer stopStore()
	storing := graph.StartStore(sctx, req.Opener, copyOpts)
	ictx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		if _, err := storing.Wait(); err != nil {
			cancel()
		}
	}()
	out, err := installStored(ictx, req, graph, verified, storing)
	failedFirst := err != nil && ictx.Err() == nil
	if failedFirst {
		stopStore()
	}
	if _, storeErr := storing.Wait(); storeErr != nil && !(failedFirst && errors.Is(storeErr, context.Canceled)) {
		return nil, frozenError(frozen, storeErr)
	}
	return out, err
}

// installStored installs the winning skills of graph, whose packages
// storing is storing.
func installStored(ctx context.Context, req Request, graph *resolve.Graph, verified map[digest.Digest]string, storing *resolve.Storing) (*Installed, error) {
	frozen := req.Frozen != nil
	// The winners are known from the packages' configs: each skill is
	// read from its layer straight into the folder's staging directory,
	// and only if the folder does not hold it already.
	// Nothing an install does or says uses a skill's description, and in
	// a large library they are a third of what it holds a skill.
	for _, n := range graph.Order {
		n.Package.Config.DropDescriptions()
	}
	merged := merge.Merge(graph.Order)
	if frozen {
		if err := req.Frozen.CheckSkills(merged); err != nil {
			return nil, errdefs.Resolution(err)
		}
	}
	scratch.Sweep("install") // what an older stax, killed, left in $TMPDIR
	skills := make([]Skill, 0, len(merged.Skills))
	layerOf := map[*resolve.Node]*Layer{}
	for _, s := range merged.Skills {
		l := layerOf[s.From]
		if l == nil {
			l = LayerOf(s.From, storing, req.MaxSize, req.MaxFiles)
			if !req.AllowHiddenText {
				l.Read.Inspect = hiddentext.LayerGuard
			}
			layerOf[s.From] = l
		}
		skills = append(skills, Skill{
			Path: s.Path, Layer: l,
			Package: lock.Key(s.From), PackageDigest: s.From.Digest, PackageVersion: s.From.Package.Config.Version, Digest: s.Digest,
		})
	}
	out := &Installed{Graph: graph, Merged: merged, Warnings: append(Overlaps(req.Placement), CaseWarnings(merged)...), LockPath: filepath.Join(req.ProjectDir, lock.FileName)}
	iopts := Options{Root: req.Placement.Root, Workspace: req.Placement.Workspace, Portable: req.Placement.Portable(), Force: req.Force, LockDir: req.LockDir, Records: req.Placement.Records,
		BeforeCommit: func() error { _, err := storing.Wait(); return err }}
	if !frozen && !req.KeepLock {
		// Made each time it is written rather than held while the skills
		// are: it lists every skill.
		write := func(w io.Writer) error {
			l := lock.New(req.Sources, graph, merged)
			for d, signer := range verified {
				l.RecordVerified(d, signer)
			}
			return l.Encode(w)
		}
		iopts.Files = []LockFile{{Path: out.LockPath, Write: write}}
	}
	iopts.Files = append(iopts.Files, req.Files...)
	var err error
	if out.Outcome, err = InstallAll(ctx, req.Placement.Dirs(), skills, iopts); err != nil {
		return nil, err
	}
	for _, t := range req.Placement.Targets {
		out.Warnings = append(out.Warnings, IgnoredFields(t.Dir, merged.Paths(), t.Runtimes)...)
	}
	out.Warnings = append(out.Warnings, SeenTwice(req.Placement, merged.Paths())...)
	return out, nil
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
