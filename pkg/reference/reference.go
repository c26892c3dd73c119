// Package reference parses the names of stax packages: registry references
// in the forms Docker users type, and OCI image layout directories.
package reference

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	dref "github.com/distribution/reference"
	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/internal/userinfo"
	"github.com/stax-dev/stax/pkg/termtext"
)

// LayoutPrefix marks a reference to an OCI image layout directory.
const LayoutPrefix = "oci:"

// RegistryScheme is how Helm writes a registry reference
// (oci://HOST/REPO:TAG). It is taken as the registry reference after it,
// never as a layout directory, although it starts with LayoutPrefix.
const RegistryScheme = "oci://"

// Reference names a package in a registry or in an OCI image layout.
type Reference struct {
	// Layout is the directory of an oci: reference; empty for a registry.
	Layout string
	// Registry is the host; docker.io for a name without one (a short
	// form, which NamesHost tells apart: stax reads it as a local tag).
	Registry string
	// Repository is the path inside the registry, lowercase.
	Repository string
	Tag        string
	Digest     digest.Digest
}

// ErrInvalid is wrapped by every parse error.
var ErrInvalid = errors.New("invalid reference")

var tagPattern = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$`)

// Parse reads host/repo:tag, host/repo@sha256:…, the same with Helm's
// oci:// in front, Docker Hub short forms (org/skills, skills) and
// oci:PATH[:tag|@digest].
func Parse(s string) (Reference, error) {
	if s == "" {
		return Reference{}, fmt.Errorf("%w: empty reference", ErrInvalid)
	}
	if rest, ok := strings.CutPrefix(s, RegistryScheme); ok {
		return parseRegistry(s, rest)
	}
	if strings.HasPrefix(s, LayoutPrefix) {
		return parseLayout(s)
	}
	named, err := dref.ParseNormalizedNamed(s)
	if err != nil {
		return Reference{}, explain(s, err)
	}
	return fromNamed(named), nil
}

// parseRegistry reads rest, what follows oci:// in s, as Helm does: a
// registry reference that names its host. Without one it would be a
// Docker Hub short form, which no Helm user means by oci://.
func parseRegistry(s, rest string) (Reference, error) {
	if !NamesHost(rest) {
		return Reference{}, fmt.Errorf("%w %q: write %sHOST/REPOSITORY[:TAG|@DIGEST], with the registry's host (for a layout directory, write oci:PATH)", ErrInvalid, s, RegistryScheme)
	}
	named, err := dref.ParseNormalizedNamed(rest)
	if err != nil {
		return Reference{}, explain(rest, err)
	}
	return fromNamed(named), nil
}

// NamesHost reports whether the registry reference s names its registry
// (ghcr.io/org/skills, localhost:5000/skills, oci://HOST/REPO) rather than
// being a short name (org/skills, skills:1.0.0), by the rule Docker's
// references follow: the first element is a host when it holds a "." or
// a ":", is localhost, or holds an uppercase letter (which no repository
// name may).
func NamesHost(s string) bool {
	s = strings.TrimPrefix(s, RegistryScheme)
	first, rest, found := strings.Cut(s, "/")
	if !found || rest == "" {
		return false
	}
	return strings.ContainsAny(first, ".:") || first == "localhost" || strings.ToLower(first) != first
}

func fromNamed(named dref.Named) Reference {
	ref := Reference{Registry: dref.Domain(named), Repository: dref.Path(named)}
	if tagged, ok := named.(dref.Tagged); ok {
		ref.Tag = tagged.Tag()
	}
	if canonical, ok := named.(dref.Digested); ok {
		ref.Digest = canonical.Digest()
	}
	return ref
}

func parseLayout(s string) (Reference, error) {
	rest := strings.TrimPrefix(s, LayoutPrefix)
	ref := Reference{}
	if at := strings.LastIndex(rest, "@"); at >= 0 {
		d, err := digest.Parse(rest[at+1:])
		if err != nil {
			return Reference{}, fmt.Errorf("%w %q: digest %q: %v", ErrInvalid, s, rest[at+1:], err)
		}
		ref.Digest, rest = d, rest[:at]
	}
	// A tag may stand before the digest, as in oci:PATH:TAG@DIGEST.
	if colon := strings.LastIndex(rest, ":"); colon >= 0 && !strings.Contains(rest[colon:], "/") {
		tag := rest[colon+1:]
		if !tagPattern.MatchString(tag) {
			return Reference{}, fmt.Errorf("%w %q: tag %q must match %s", ErrInvalid, s, tag, tagPattern)
		}
		ref.Tag, rest = tag, rest[:colon]
	}
	if rest == "" {
		return Reference{}, fmt.Errorf("%w %q: no directory after %q (write oci:PATH[:tag|@digest])", ErrInvalid, s, LayoutPrefix)
	}
	ref.Layout = rest
	return ref, nil
}

// explain turns the grammar errors of distribution/reference into messages
// that say how to fix the reference.
func explain(s string, err error) error {
	if shown := userinfo.MaskReference(s); shown != s {
		// Pasted from a URL that carried them: quoted without them.
		_, rest, _ := strings.Cut(shown, "@")
		host, _, _ := strings.Cut(rest, "/")
		return fmt.Errorf("%w %q: a reference holds no credentials: give them with stax login %s, and write it without them: %s",
			ErrInvalid, shown, termtext.Escape(host), termtext.Escape(rest))
	}
	for _, scheme := range []string{"https://", "http://"} {
		if rest, ok := strings.CutPrefix(s, scheme); ok {
			return fmt.Errorf("%w %q: a reference names no scheme: write it without %q: %s", ErrInvalid, s, scheme, termtext.Escape(rest))
		}
	}
	if at := strings.LastIndex(s, "@"); at >= 0 {
		if _, derr := digest.Parse(s[at+1:]); derr != nil {
			return fmt.Errorf("%w %q: a digest is written @sha256:<64 hex digits>%s", ErrInvalid, s, versionAfterAt(s[:at], s[at+1:]))
		}
	}
	if tag, ok := tagOf(s); ok && !tagPattern.MatchString(tag) {
		return fmt.Errorf("%w %q: tag %q %s", ErrInvalid, s, tag, tagProblem(tag))
	}
	switch {
	// ParseNormalizedNamed formats this error without wrapping the sentinel.
	case errors.Is(err, dref.ErrNameContainsUppercase), strings.Contains(err.Error(), "must be lowercase"):
		return fmt.Errorf("%w %q: repository names must be lowercase (GHCR and most registries reject uppercase); use %q",
			ErrInvalid, s, lowercaseName(s))
	case errors.Is(err, dref.ErrNameTooLong):
		return fmt.Errorf("%w %q: repository name longer than %d characters", ErrInvalid, s, dref.RepositoryNameTotalLengthMax)
	default:
		return fmt.Errorf("%w %q: %v (expected HOST/REPOSITORY[:TAG|@DIGEST], a local store name such as org/skills:1.0.0, or oci:PATH[:TAG])",
			ErrInvalid, s, err)
	}
}

// versionAfterAt is, for a tag, version or range written after "@" as
// npm writes a version (REPO@1.0.0, REPO@latest, REPO@^1.2.0), how stax
// takes it: a tag after ":", and a range with --version. Empty for what
// is none of them, or when repo has a tag already.
func versionAfterAt(repo, v string) string {
	if _, tagged := tagOf(repo); v == "" || strings.HasPrefix(v, "sha") || tagged {
		return ""
	}
	// Both may come from a stax.yaml: escaped, as the reference is quoted.
	repo = termtext.Escape(repo)
	version := strings.ContainsAny(v[:1], "0123456789") || len(v) > 1 && v[0] == 'v' && strings.ContainsAny(v[1:2], "0123456789")
	switch {
	case tagPattern.MatchString(v) && version:
		return fmt.Sprintf("; a version is a tag, written after \":\" (%s:%s), or a range given with --version (stax add %s --version ^%s)",
			repo, v, repo, strings.TrimPrefix(v, "v"))
	case tagPattern.MatchString(v):
		return fmt.Sprintf("; a tag is written after \":\" (%s:%s)", repo, v)
	case strings.ContainsAny(v[:1], "0123456789^~<>=*"):
		return fmt.Sprintf("; a range given with --version (stax add %s --version '%s') takes the highest version in it", repo, termtext.Escape(v))
	}
	return ""
}

// tagOf returns the tag part of a registry reference s, if it has one.
func tagOf(s string) (string, bool) {
	if at := strings.Index(s, "@"); at >= 0 {
		s = s[:at]
	}
	colon := strings.LastIndex(s, ":")
	if colon < 0 || colon < strings.LastIndex(s, "/") {
		return "", false
	}
	return s[colon+1:], true
}

// tagProblem says what is wrong with tag, which tagPattern refuses.
func tagProblem(tag string) string {
	switch {
	case tag == "":
		return "is empty: write NAME:TAG, or leave out the colon"
	case len(tag) > 128:
		return fmt.Sprintf("is %d characters long; a tag has at most 128", len(tag))
	case tag[0] == '.' || tag[0] == '-':
		return "starts with " + tag[:1] + "; a tag starts with a letter, a digit or _"
	}
	return "may hold only letters, digits, _, . and -"
}

// lowercaseName lowercases the name of a reference, leaving its tag and
// digest, which may hold uppercase letters, as they are.
func lowercaseName(s string) string {
	end := len(s)
	if at := strings.Index(s, "@"); at >= 0 {
		end = at
	}
	if colon := strings.LastIndex(s[:end], ":"); colon > strings.LastIndex(s[:end], "/") {
		end = colon
	}
	return strings.ToLower(s[:end]) + s[end:]
}

// IsLayout reports whether r names an OCI image layout directory.
func (r Reference) IsLayout() bool { return r.Layout != "" }

// Name is the repository with its registry, or the oci: layout.
func (r Reference) Name() string {
	if r.IsLayout() {
		return LayoutPrefix + r.Layout
	}
	return r.Registry + "/" + r.Repository
}

// String is the fully qualified form.
func (r Reference) String() string { return r.Name() + r.suffix() }

// Familiar is the short form Docker users write (org/skills:1.0.0 for
// Docker Hub); the local store keys its tags by it.
func (r Reference) Familiar() string {
	if r.IsLayout() {
		return r.String()
	}
	named, err := dref.WithName(r.Registry + "/" + r.Repository)
	if err != nil {
		return r.String()
	}
	return dref.FamiliarName(named) + r.suffix()
}

func (r Reference) suffix() string {
	var b strings.Builder
	if r.Tag != "" {
		b.WriteString(":" + r.Tag)
	}
	if r.Digest != "" {
		b.WriteString("@" + r.Digest.String())
	}
	return b.String()
}

// WithTag returns r with its tag replaced.
func (r Reference) WithTag(tag string) (Reference, error) {
	if !tagPattern.MatchString(tag) {
		return Reference{}, fmt.Errorf("%w: tag %q must match %s", ErrInvalid, tag, tagPattern)
	}
	r.Tag = tag
	return r, nil
}

// ValidTag reports whether tag is a valid OCI tag.
func ValidTag(tag string) bool { return tagPattern.MatchString(tag) }
