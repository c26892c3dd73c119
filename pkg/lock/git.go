package lock

import (
	"errors"
	"fmt"
	"strings"

	"github.com/stax-dev/stax/internal/userinfo"
	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/gitpackage"
	"github.com/stax-dev/stax/pkg/gitsource"
	"github.com/stax-dev/stax/pkg/resolve"
	"github.com/stax-dev/stax/pkg/termtext"
)

// Sources are install sources as the lock records them: a git reference
// in its explicit form, without the credentials its URL may be written
// with; any other as declared.
func Sources(sources []string) []string {
	out := make([]string, len(sources))
	for i, s := range sources {
		out[i] = s
		if !gitsource.IsReference(s) {
			continue
		}
		if r, err := gitsource.Parse(s); err == nil {
			out[i] = r.String()
		}
	}
	return out
}

// gitOf is the record of a git node; nil for any other.
func gitOf(g *resolve.GitNode) *Git {
	if g == nil {
		return nil
	}
	r := g.Locked.Resolved
	out := &Git{URL: g.Reference.Repository(), Subdir: g.Reference.Subdir, Ref: r.Ref, Kind: string(r.Kind), Commit: r.Commit,
		Plugin: g.Plugin, Skills: g.Skills}
	if f := g.Locked.Followed; f != nil {
		out.Followed = &GitFollowed{URL: f.Ref.Repository(), Subdir: f.Ref.Subdir, Ref: f.Resolved.Ref, Kind: string(f.Resolved.Kind), Commit: f.Resolved.Commit}
	}
	return out
}

// GitLocked are the commits the lock records of its git packages, by
// reference, for resolve.GitOptions.Locked. A record whose URL does not
// parse, or whose REF is not the one its reference names, is left out:
// that package resolves again, and its digest is checked against the
// lock's. The REF names the package in the local store.
func (l *Lock) GitLocked() map[string]gitpackage.Locked {
	out := map[string]gitpackage.Locked{}
	for _, p := range l.Packages {
		g := p.Git
		if g == nil {
			continue
		}
		locked := gitpackage.Locked{Resolved: gitsource.Resolved{Ref: g.Ref, Kind: gitsource.Kind(g.Kind), Commit: g.Commit}}
		if r, err := gitsource.Parse(p.Ref); err == nil && r.Ref != "" && !locked.Resolved.Names(r.Ref) {
			continue
		}
		if f := g.Followed; f != nil {
			ref, err := gitsource.New(f.URL, f.Subdir, f.Ref)
			if err != nil {
				continue
			}
			locked.Followed = &gitpackage.Followed{Ref: ref, Resolved: gitsource.Resolved{Ref: f.Ref, Kind: gitsource.Kind(f.Kind), Commit: f.Commit}}
		}
		out[p.Ref] = locked
	}
	return out
}

// check refuses a git record stax does not write: what it holds reaches
// git (a followed repository's URL, SUBDIR and REF, the commits a frozen
// install fetches), folders (skills) and messages, so every value is held
// to the rule it was written by — a URL without credentials that
// gitsource.New takes as it is, a resolved REF and commit, plugin and
// skill names by the one safe-name rule.
func (g *Git) check() error {
	if err := checkGitSource(g.URL, g.Subdir, gitsource.Resolved{Ref: g.Ref, Kind: gitsource.Kind(g.Kind), Commit: g.Commit}); err != nil {
		return err
	}
	if g.Plugin != "" {
		name, market, scoped := strings.Cut(g.Plugin, "@")
		if err := layers.CheckName(name); err != nil {
			return fmt.Errorf("plugin: %w", err)
		}
		if err := layers.CheckName(market); scoped && err != nil {
			return fmt.Errorf("plugin: %w", err)
		}
	}
	for _, s := range g.Skills {
		if err := layers.CheckName(s); err != nil {
			return fmt.Errorf("skills: %w", err)
		}
	}
	if f := g.Followed; f != nil {
		if err := checkGitSource(f.URL, f.Subdir, gitsource.Resolved{Ref: f.Ref, Kind: gitsource.Kind(f.Kind), Commit: f.Commit}); err != nil {
			return fmt.Errorf("followed: %w", err)
		}
	}
	return nil
}

// checkGitSource holds the URL, SUBDIR and resolved REF of a git record
// to how stax writes them.
func checkGitSource(url, subdir string, r gitsource.Resolved) error {
	ref, err := gitsource.New(url, subdir, "")
	if err != nil {
		// Its text only: the lock's class is the file's, not a command
		// line's invalid argument.
		return errors.New(err.Error())
	}
	if ref.Repository() != url || ref.Subdir != subdir {
		return fmt.Errorf("url %q and subdir %q are not as stax writes them (%s, %s), without credentials", userinfo.Mask(url), subdir, termtext.Escape(ref.Repository()), termtext.Escape(ref.Subdir))
	}
	return r.Check()
}
