package workflow

import (
	"context"
	"fmt"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/pkg/declaration"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/semver"
	"github.com/stax-dev/stax/pkg/staxyaml"
	"github.com/stax-dev/stax/pkg/target"
	"github.com/stax-dev/stax/pkg/termtext"
)

// versionPin is where UpdateOptions.To moves its source: the tag of the
// version and its digest, by the key resolve gives the source (see
// resolve.Options.Pins); an empty key when the source names the tag
// itself and needs no pin.
type versionPin struct {
	key, tag string
	digest   digest.Digest
}

// moveTo moves the one source selected to the version to, in the
// stax.yaml m will write: a source naming a tag or digest names the tag
// of that version instead; a range that does not allow it becomes ^ it,
// as Latest moves one. A range that allows it, and a source naming
// neither tag nor range, stay as written, and the pin returned fixes the
// version, which stax.lock then keeps.
func moveTo(ctx context.Context, env *Env, m *projectFile, selected map[string]bool, to string) ([]RangeUpdate, *versionPin, error) {
	v, err := semver.Parse(to)
	if err != nil {
		return nil, nil, errdefs.Invalid(fmt.Errorf("--to %s: %w", to, err))
	}
	decls, err := m.declared(m.sources(), nil)
	if err != nil {
		return nil, nil, err
	}
	var d declaration.Declaration
	for _, s := range decls {
		if selected[s.Package()] {
			d = s
		}
	}
	if d.Kind == declaration.Directory || d.Written == "" {
		return nil, nil, errdefs.Invalid(fmt.Errorf("--to %s: %s is a package directory, which has no versions to choose from", to, d.String()))
	}
	if d.Kind == declaration.Git {
		return moveGitTo(ctx, env, m, d, v)
	}
	ref, rng := d.Ref, d.Range
	src := tagSourceOf(d, m.dir)
	pin, err := lookUpVersion(ctx, env, src, v)
	if err != nil {
		return nil, nil, err
	}
	moved := []RangeUpdate{}
	switch {
	case ref.Tag != "" || ref.Digest != "":
		named := ref
		named.Tag, named.Digest = pin.tag, ""
		written := named.String()
		if src.local {
			// Still without a registry host: the local store's.
			written = named.Familiar()
		}
		to := staxyaml.Dependency{Ref: written, Plugin: d.Plugin, Skills: d.Skills}
		if err := m.edit(func(data []byte) ([]byte, error) { return staxyaml.AddSource(data, to) }); err != nil {
			return nil, nil, err
		}
		return moved, &versionPin{}, nil
	case rng != nil && !rng.Allows(v):
		to := staxyaml.Dependency{Ref: d.Written, Version: "^" + v.String(), Plugin: d.Plugin, Skills: d.Skills}
		if err := m.edit(func(data []byte) ([]byte, error) { return staxyaml.AddSource(data, to) }); err != nil {
			return nil, nil, err
		}
		moved = append(moved, RangeUpdate{Ref: d.Written, Old: rng.String(), New: to.Version})
	}
	pin.key = src.repo.Familiar()
	return moved, pin, nil
}

// maxVersionsListed is how many tags an error for a version not found
// lists, the nearest to it first.
const maxVersionsListed = 10

// lookUpVersion finds the tag of src that reads as the version v (the
// one written as v, else another, such as v1.2.0) and its digest.
func lookUpVersion(ctx context.Context, env *Env, src tagSource, v semver.Version) (*versionPin, error) {
	repo := src.repo
	t, err := src.open(ctx, env)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	tags, err := t.Tags(ctx)
	if err != nil {
		return nil, err
	}
	var found string
	for _, tag := range tags {
		if tv, ok := semver.ParseTag(tag); ok && semver.Compare(tv, v) == 0 && (found == "" || tag == v.String()) {
			found = tag
		}
	}
	if found == "" {
		listed := "it has no tags"
		if some := target.SomeTags(tags, v.String(), maxVersionsListed); some != "" {
			listed = "its tags are " + some
		}
		return nil, errdefs.Resolution(fmt.Errorf("no tag of %s is the version %s: %s", termtext.Escape(repo.Familiar()), v, listed))
	}
	ref := t.Ref
	ref.Tag = found
	desc, err := t.WithRef(ref).Lookup(ctx)
	if err != nil {
		return nil, err
	}
	return &versionPin{tag: found, digest: desc.Digest}, nil
}
