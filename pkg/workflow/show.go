package workflow

import (
	"context"
	"fmt"
	"strings"

	"github.com/stax-dev/stax/pkg/discover"
	"github.com/stax-dev/stax/pkg/errdefs"
)

// ShowOptions say which runtime's view of which skill Show returns.
type ShowOptions struct {
	// Discover is the runtime and the project and home directories it
	// runs in. Required.
	Discover discover.Options
	// Name is a skill's directory name, else its frontmatter name.
	// Required.
	Name string
}

// ShowResult is a skill as the runtime loads it.
type ShowResult struct {
	Runtime string `json:"runtime"`
	discover.Skill
	// Body is what the runtime's Skill tool returns.
	Body string `json:"body"`
}

// Show finds the skill the runtime loads for a name, as List finds
// skills, and admits it as render and mcp do (see Admit). A name the
// runtime does not load is an error naming the skills it does.
func Show(ctx context.Context, env *Env, opts ShowOptions) (*ShowResult, error) {
	l, err := discover.List(opts.Discover)
	if err != nil {
		return nil, errdefs.MarkLocal(err)
	}
	s, err := findShown(l, opts.Name, opts.Discover.Project)
	if err != nil {
		return nil, err
	}
	if err := Admit(ctx, env, s.Dir); err != nil {
		return nil, err
	}
	return &ShowResult{Runtime: l.Runtime, Skill: s, Body: s.Body()}, nil
}

// findShown is the skill the runtime of l loads for name, or why none is.
func findShown(l *discover.Listing, name, project string) (discover.Skill, error) {
	s, ok := l.Find(name)
	switch {
	case !ok && s.Dir != "":
		return s, errdefs.Invalid(fmt.Errorf("%s cannot load %s (%s): %s", l.Runtime, name, s.Dir, s.Problem))
	case !ok:
		var names []string
		for _, v := range l.Visible() {
			names = append(names, v.Key)
		}
		hint := "it sees no skills"
		if len(names) > 0 {
			hint = "it sees " + strings.Join(names, ", ")
		}
		return s, errdefs.Invalid(fmt.Errorf("%s sees no skill %q from %s; %s (stax list shows where it looks)", l.Runtime, name, project, hint))
	}
	return s, nil
}
