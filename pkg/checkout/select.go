package checkout

import (
	"fmt"
	"path"
	"slices"

	"github.com/stax-dev/stax/pkg/errdefs"
)

// Select keeps of src's skills only those named (skill directory names,
// as --skill gives them); none keeps them all. A name src does not have
// is an error that lists its skills, the nearest first.
func (src *Source) Select(names []string) error {
	if len(names) == 0 {
		return nil
	}
	if src.Follow != nil {
		return errdefs.Invalid(fmt.Errorf("plugin %s lives in another repository: choose its skills once it is fetched", src.Plugin.Name))
	}
	have := make([]string, len(src.Skills))
	for i, s := range src.Skills {
		have[i] = s.Name
	}
	for _, n := range names {
		if !slices.Contains(have, n) {
			return errdefs.Resolution(fmt.Errorf("%s has no skill %q%s; its skills: %s", src.where(), n, nearest(n, have), listed(have)))
		}
	}
	src.Skills = slices.DeleteFunc(src.Skills, func(s Skill) bool { return !slices.Contains(names, s.Name) })
	src.selected = true
	return nil
}

// where names src in messages: its plugin, or its directory.
func (src *Source) where() string {
	if src.Plugin != nil {
		return "plugin " + src.Plugin.Name
	}
	if dir := path.Join(src.rootSubdir, src.Subdir); dir != "." {
		return dir
	}
	return "the repository"
}
