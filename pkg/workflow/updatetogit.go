package workflow

import (
	"context"
	"fmt"
	"strings"

	"github.com/stax-dev/stax/pkg/declaration"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/gitsource"
	"github.com/stax-dev/stax/pkg/semver"
	"github.com/stax-dev/stax/pkg/staxyaml"
	"github.com/stax-dev/stax/pkg/target"
	"github.com/stax-dev/stax/pkg/termtext"
)

// moveGitTo moves the git source d to the tag of its repository that
// reads as the version v (the one written as v, else another, such as
// v1.2.0), in the stax.yaml m will write: the source names that tag
// instead of its REF or range. A git source has no digest to pin a
// version by, so the declaration says it; its range, if any, is
// returned as moved away.
func moveGitTo(ctx context.Context, env *Env, m *projectFile, d declaration.Declaration, v semver.Version) ([]RangeUpdate, *versionPin, error) {
	ref := d.Git
	cache, err := env.gitCache()
	if err != nil {
		return nil, nil, err
	}
	refs, err := cache.ListRefs(ctx, ref)
	if err != nil {
		return nil, nil, err
	}
	found := ""
	for _, tag := range refs.TagNames() {
		if tv, ok := semver.ParseTag(tag); ok && semver.Compare(tv, v) == 0 && (found == "" || tag == v.String()) {
			found = tag
		}
	}
	if found == "" {
		listed := "it has no tags"
		if some := target.SomeTags(refs.TagNames(), v.String(), maxVersionsListed); some != "" {
			listed = "its tags are " + some
		}
		return nil, nil, errdefs.Resolution(fmt.Errorf("no tag of git repository %s is the version %s: %s", termtext.Escape(ref.Display()), v, listed))
	}
	to := staxyaml.Dependency{Ref: atTag(d.Written, ref, found), Plugin: d.Plugin, Skills: d.Skills}
	if err := m.edit(func(data []byte) ([]byte, error) { return staxyaml.AddSource(data, to) }); err != nil {
		return nil, nil, err
	}
	moved := []RangeUpdate{}
	if d.Range != nil {
		moved = append(moved, RangeUpdate{Ref: d.Written, Old: d.Range.String()})
	}
	return moved, &versionPin{}, nil
}

// atTag is the git source written as written, its REF tag: its URL
// keeps the credentials and the form the user gave it (a token written
// in it stays in stax.yaml, see docs/sources.md), where ref.String()
// leaves them out. A form naming REF in its path (a web URL's /tree/REF)
// is written in the explicit form, without credentials, which it cannot
// hold.
func atTag(written string, ref gitsource.Reference, tag string) string {
	base, _, _ := strings.Cut(written, "#") // as gitsource.Parse cuts it
	if r, err := gitsource.Parse(base + "#" + tag); err == nil && r.Repository() == ref.Repository() && r.Subdir == ref.Subdir {
		return base + "#" + tag
	}
	named := ref
	named.Ref = tag
	return named.String()
}
