package workflow

import (
	"context"
	"fmt"

	"github.com/stax-dev/stax/pkg/declaration"
	"github.com/stax-dev/stax/pkg/errdefs"
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
	named := ref
	named.Ref = found
	to := staxyaml.Dependency{Ref: named.String(), Plugin: d.Plugin, Skills: d.Skills}
	if err := m.edit(func(data []byte) ([]byte, error) { return staxyaml.AddSource(data, to) }); err != nil {
		return nil, nil, err
	}
	moved := []RangeUpdate{}
	if d.Range != nil {
		moved = append(moved, RangeUpdate{Ref: d.Written, Old: d.Range.String()})
	}
	return moved, &versionPin{}, nil
}
