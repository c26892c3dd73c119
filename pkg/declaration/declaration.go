// Package declaration holds how a package is asked for, parsed once where
// it enters stax: an entry of stax.yaml (install.sources, packages), of
// stax.lock, an argument of the command line, or a dependency a package
// records. Every later step (resolve, lock, outdated, update, add and
// remove) takes a Declaration and parses nothing again.
package declaration

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/stax-dev/stax/internal/userinfo"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/gitsource"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/semver"
	"github.com/stax-dev/stax/pkg/termtext"
)

// Kind is what a declaration names. Each kind of source stax reads is
// one value here and one case in Parse.
type Kind int

const (
	// Registry is a registry reference, or a name without a host, which
	// stax reads as a tag of the local store.
	Registry Kind = iota + 1
	// Layout is an OCI image layout directory (oci:PATH).
	Layout
	// Directory is a package directory (., .., or a path starting with
	// ./, ../ or /), built where it is.
	Directory
	// Git is a tree of a git repository (git+https://…, github.com/OWNER/REPO;
	// see gitsource.Parse), built as a directory is.
	Git
)

// String is how messages name the kind.
func (k Kind) String() string {
	switch k {
	case Registry:
		return "registry"
	case Layout:
		return "OCI layout"
	case Directory:
		return "directory"
	case Git:
		return "git"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Where is the place a declaration was written, for messages. The zero
// value is the command line.
type Where struct {
	// File is the file it was written in (stax.yaml, stax.lock, the
	// reference of the package that records it); empty for the command
	// line.
	File string
	// Line is its line in File, 0 when the file has none to give.
	Line int
}

// CommandLine is how a message names the place of a declaration given as
// an argument.
const CommandLine = "command line"

// String is the place as a message names it: stax.yaml:7, stax.lock, or
// "command line".
func (w Where) String() string {
	switch {
	case w.File == "":
		return CommandLine
	case w.Line == 0:
		return w.File
	}
	return fmt.Sprintf("%s:%d", w.File, w.Line)
}

// Declaration is one package asked for.
type Declaration struct {
	Kind Kind
	// Written is the declaration as written, the one string messages
	// quote.
	Written string
	// Ref is the parsed reference of a Registry or Layout declaration.
	Ref reference.Reference
	// Git is the parsed reference of a Git declaration, and Plugin the
	// plugin of its marketplace chosen (NAME or NAME@MARKETPLACE).
	Git    gitsource.Reference
	Plugin string
	// Range is the version range that picks among the tags of a
	// reference naming neither tag nor digest; nil for none.
	Range *semver.Range
	// Skills are the skills chosen from the package, by name; empty
	// chooses all of them.
	Skills []string
	// Where is the place it was written.
	Where Where
}

// Parse reads written, a declaration as written at where: a directory, an
// oci: layout, or a registry reference (see reference.Parse). A parse
// error names neither the place nor the declaration's role: the caller,
// who knows them, does.
func Parse(written string, where Where) (Declaration, error) {
	d := Declaration{Written: written, Where: where}
	if IsPath(written) {
		d.Kind = Directory
		return d, nil
	}
	if gitsource.IsReference(written) {
		g, err := gitsource.Parse(written)
		if err != nil {
			return Declaration{}, err
		}
		d.Git, d.Kind = g, Git
		return d, nil
	}
	ref, err := reference.Parse(written)
	if err != nil {
		return Declaration{}, gitWithCredentials(written, err)
	}
	d.Ref, d.Kind = ref, Registry
	if ref.IsLayout() {
		d.Kind = Layout
	}
	return d, nil
}

// gitWithCredentials is the error of written, which does not parse as a
// registry reference (err), when it is a git repository's shorthand with
// the credentials of a URL (https://USER:TOKEN@github.com/OWNER/REPO):
// git takes them, where reference's message gives stax login, which
// gives a registry's. They are masked, as every message masks them.
func gitWithCredentials(written string, err error) error {
	shown := userinfo.MaskReference(written)
	clean := strings.Replace(shown, "***@", "", 1) // https:// kept: it reads /tree/REF/SUBDIR
	if shown == written || !gitsource.IsReference(clean) {
		return err
	}
	return errdefs.Invalid(fmt.Errorf("%w %s: a git repository's shorthand holds no credentials: write %s, which git asks its credential helper for, or give them in a git URL (git+https://USER:TOKEN@HOST/PATH[//SUBDIR][#REF])",
		gitsource.ErrInvalid, termtext.Escape(shown), termtext.Escape(clean)))
}

// Of is the declaration of ref, parsed already, written as written at
// where.
func Of(ref reference.Reference, written string, where Where) Declaration {
	d := Declaration{Kind: Registry, Written: written, Ref: ref, Where: where}
	if ref.IsLayout() {
		d.Kind = Layout
	}
	return d
}

// ParseAll parses declarations written at one place, in order.
func ParseAll(written []string, where Where) ([]Declaration, error) {
	decls := make([]Declaration, 0, len(written))
	for _, s := range written {
		d, err := Parse(s, where)
		if err != nil {
			return nil, err
		}
		decls = append(decls, d)
	}
	return decls, nil
}

// Written are decls as written, as stax.lock and the JSON of a job
// record them.
func Written(decls []Declaration) []string {
	out := make([]string, len(decls))
	for i, d := range decls {
		out[i] = d.Written
	}
	return out
}

// InRange returns d choosing its version in rng. It refuses a range for
// what has no tags to choose among: a directory, or a reference that
// names a tag or a digest.
func (d Declaration) InRange(rng *semver.Range) (Declaration, error) {
	if rng == nil {
		return d, nil
	}
	if d.Kind == Directory {
		return Declaration{}, fmt.Errorf("version %q needs a ref: a range chooses among a repository's tags", rng)
	}
	if d.Kind == Git {
		if d.Git.Ref != "" {
			return Declaration{}, fmt.Errorf("%s names a REF (#%s) and a version range %q: drop one", d.Git, d.Git.Ref, rng)
		}
		d.Range = rng
		return d, nil
	}
	if d.Ref.Tag != "" || d.Ref.Digest != "" {
		return Declaration{}, fmt.Errorf("ref %s names a tag or digest and a version range %q: name the repository alone (%s), or drop the version", d.Written, rng, d.Ref.Name())
	}
	d.Range = rng
	return d, nil
}

// SkillSet is names, the skills a declaration chooses (--skill, skills:
// in stax.yaml), in the order written without repeats: the choice is a
// set, so a repeated name keys, builds and locks the package as one does.
func SkillSet(names []string) []string {
	var out []string
	for _, n := range names {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// IsPath reports whether a declaration names a directory rather than a
// reference: "." or "..", or anything starting with ./, ../ or /.
func IsPath(written string) bool {
	return written == "." || written == ".." || strings.HasPrefix(written, "./") || strings.HasPrefix(written, "../") || filepath.IsAbs(written)
}

// String is the declaration as written.
func (d Declaration) String() string { return d.Written }

// IsRemote reports whether d is looked up on a registry: a registry
// reference that names its host, not a tag of the local store.
func (d Declaration) IsRemote() bool {
	return d.Kind == Registry && reference.NamesHost(d.Written)
}

// Package names the package d is of, whatever its tag, digest or range:
// a registry repository (its full name), an oci: layout or a directory
// (each cleaned). Two sources of one package cannot both be installed.
func (d Declaration) Package() string {
	if d.Kind == Directory {
		return path.Clean(d.Written)
	}
	if d.Kind == Layout {
		// Its directory, cleaned as a directory's: the command line's
		// is saved as ./PATH (source.Declaration), a hand's often not.
		return reference.LayoutPrefix + path.Clean(d.Ref.Layout)
	}
	if d.Kind == Git {
		// One repository's SUBDIR, whatever its REF.
		g := d.Git
		g.Ref = ""
		return g.String()
	}
	return d.Ref.Name()
}

// Wrap says of err, a failure of d, where d was written, when that was
// in a file: "stax.yaml:7: …". A failure of a declaration of the command
// line is the user's last command, and is left as it is.
func (d Declaration) Wrap(err error) error {
	if err == nil || d.Where.File == "" {
		return err
	}
	return fmt.Errorf("%s: %w", d.Where, err)
}
