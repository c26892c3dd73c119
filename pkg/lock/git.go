package lock

import (
	"github.com/stax-dev/stax/pkg/gitpackage"
	"github.com/stax-dev/stax/pkg/gitsource"
	"github.com/stax-dev/stax/pkg/resolve"
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
// parse is left out: that package resolves again, and its digest is
// checked against the lock's.
func (l *Lock) GitLocked() map[string]gitpackage.Locked {
	out := map[string]gitpackage.Locked{}
	for _, p := range l.Packages {
		g := p.Git
		if g == nil {
			continue
		}
		locked := gitpackage.Locked{Resolved: gitsource.Resolved{Ref: g.Ref, Kind: gitsource.Kind(g.Kind), Commit: g.Commit}}
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
