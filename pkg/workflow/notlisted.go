package workflow

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/stax-dev/stax/internal/editdistance"
	"github.com/stax-dev/stax/pkg/declaration"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/termtext"
)

// notListed is the error of named, a source to remove or update, when
// install.sources does not list it: it names the sources listed, and the
// one meant, whose repository's last name is the one named or a typo away
// from it (stax remove tools, as npm names a package), as the command
// line takes it: a directory relative to where stax runs, as stax.yaml's
// is to the project.
func (m *projectFile) notListed(named declaration.Declaration) error {
	sources := m.sources()
	decls, err := m.declared(sources, nil)
	if err != nil {
		return err
	}
	var listed, names []string
	packages := map[string]string{}
	for i, d := range decls {
		p := sourceName(d)
		listed = append(listed, termtext.Escape(sources[i].String()))
		name := path.Base(p)
		if sources[i].Path != "" && !filepath.IsAbs(p) {
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
	pkg := sourceName(named)
	msg := fmt.Sprintf("%s is not in install.sources of %s, which lists %s", termtext.Escape(pkg), m.path, which)
	if near := editdistance.Closest(path.Base(pkg), names); near != "" {
		msg += fmt.Sprintf(": did you mean %s?", termtext.Escape(packages[near]))
	}
	return errdefs.Invalid(errors.New(msg))
}

// sourceName is how a message names the package of d: a registry's
// repository as a plan names it, without the docker.io/library/ that
// Package keys a name of the local store by (team-skills).
func sourceName(d declaration.Declaration) string {
	if d.Kind != declaration.Registry {
		return d.Package()
	}
	r := d.Ref
	r.Tag, r.Digest = "", ""
	return r.Familiar()
}

// maxListed is how many sources a message lists.
const maxListed = 10
