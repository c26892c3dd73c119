package resolve

import (
	"fmt"
	"strings"

	"github.com/stax-dev/stax/pkg/declaration"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/termtext"
)

// A package names its dependencies, and every consumer that resolves it
// sends requests where they point. A package from a registry on the
// internet that names one on the consumer's own machine or network
// (reference.IsPrivate: 127.0.0.1:PORT, localhost, 10.0.0.0/8, …) would
// make each consumer call its own services, with the credentials it
// keeps for them. So a package read from a registry that is not itself
// private may name a private registry only if the consumer names that
// registry itself, in a declaration of its own (install.sources or
// packages of stax.yaml, or the command line): what the consumer already
// sends requests to. A package read from a private registry, from an
// oci: layout or from the local store by a name without a host is the
// consumer's own, and may name any registry.

// noteNamed records the registry d names, a declaration of the
// consumer's own.
func (r *resolver) noteNamed(d declaration.Declaration) {
	if !d.IsRemote() {
		return
	}
	if r.named == nil {
		r.named = map[string]bool{}
	}
	r.named[strings.ToLower(d.Ref.Registry)] = true
}

// privateFromPublic is the registry d names when it is a private one and
// from, the registry of the package declaring it (empty for the
// consumer's own), is not.
func privateFromPublic(from string, d declaration.Declaration) (string, bool) {
	if from == "" || reference.IsPrivate(from) || !d.IsRemote() || !reference.IsPrivate(d.Ref.Registry) {
		return "", false
	}
	return d.Ref.Registry, true
}

// checkReach refuses dep, a dependency of the package at the end of path
// read from the registry from, when it names a private registry that the
// package may not make the consumer call.
func (r *resolver) checkReach(from string, dep declaration.Declaration, path []string) error {
	host, private := privateFromPublic(from, dep)
	if !private || r.named[strings.ToLower(host)] {
		return nil
	}
	return errdefs.Resolution(fmt.Errorf("%s depends on %s, on %s: a package from %s may not make stax send requests to a loopback, link-local or private-network address; if you trust it, declare a package from %s yourself (in stax.yaml or on the command line)",
		chain(path), termtext.Escape(dep.Written), termtext.Escape(host), termtext.Escape(from), termtext.Escape(host)))
}
