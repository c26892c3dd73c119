package workflow

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/stax-dev/stax/internal/editdistance"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/termtext"
)

// notListed is the error of pkg, named to remove or update, when
// install.sources does not list it: it names the sources listed, and the
// one meant, whose repository's last name is the one named or a typo away
// from it (stax remove tools, as npm names a package), as the command
// line takes it: a directory relative to where stax runs, as stax.yaml's
// is to the project.
func (m *projectFile) notListed(pkg string) error {
	var listed, names []string
	packages := map[string]string{}
	for _, d := range m.sources() {
		p := d.Package()
		listed = append(listed, termtext.Escape(d.String()))
		name := path.Base(p)
		if d.Path != "" && !filepath.IsAbs(p) {
			// "./skills", not "skills", a repository's name.
			if p = filepath.Join(m.dir, p); filepath.IsLocal(p) {
				p = "." + string(filepath.Separator) + p
			}
		}
		if _, ok := packages[name]; !ok {
			packages[name] = p
			names = append(names, name)
		}
	}
	if len(listed) > maxListed {
		listed = append(listed[:maxListed], fmt.Sprintf("and %d more", len(listed)-maxListed))
	}
	which := "none"
	if len(listed) > 0 {
		which = strings.Join(listed, ", ")
	}
	msg := fmt.Sprintf("%s is not in install.sources of %s, which lists %s", termtext.Escape(pkg), m.path, which)
	if near := editdistance.Closest(path.Base(pkg), names); near != "" {
		msg += fmt.Sprintf(": did you mean %s?", termtext.Escape(packages[near]))
	}
	return errdefs.Invalid(errors.New(msg))
}

// maxListed is how many sources a message lists.
const maxListed = 10
