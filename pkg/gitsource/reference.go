// Package gitsource fetches packages' trees from git repositories through
// the user's own git: the references that name them, resolving a REF to
// a commit with git ls-remote, fetching only that commit and only SUBDIR
// into a cache under $STAX_HOME, and writing that tree into a directory.
//
// Everything a repository holds is hostile: git runs nothing from it
// (no hooks, filters, fsmonitor or submodules, never a checkout), and
// its tree is held to the limits of a skills layer before a blob is read.
package gitsource

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/stax-dev/stax/internal/loopback"
	"github.com/stax-dev/stax/internal/userinfo"
	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/hiddentext"
	"github.com/stax-dev/stax/pkg/termtext"
)

// Prefix marks a git reference of the explicit form (git+https://…).
const Prefix = "git+"

// The hosts whose shorthand (github.com/OWNER/REPO) and web addresses
// name git repositories. They serve no OCI registry at these names.
var shorthandHosts = []string{"github.com", "gitlab.com"}

// Reference names a tree in a git repository: the repository, the
// directory in it (SUBDIR) and the REF.
type Reference struct {
	// Subdir is the directory of the repository the tree is taken from,
	// slash-separated and clean; empty for the repository's root.
	Subdir string
	// Ref is a tag, a branch or a full commit; empty for the highest
	// release tag, else the default branch.
	Ref string

	// url is the repository's URL as git is handed it, credentials and
	// all.
	url *url.URL
}

// ErrInvalid is wrapped by every error Parse returns.
var ErrInvalid = errors.New("invalid git reference")

// IsReference reports whether s is written as a git reference, so that a
// declaration is parsed by Parse rather than as a registry reference: it
// starts with git+ or git://, or it names a repository on github.com or
// gitlab.com, as shorthand or as a web address. It says nothing of
// whether Parse accepts it.
func IsReference(s string) bool {
	lower := strings.ToLower(s)
	if strings.HasPrefix(lower, Prefix) || strings.HasPrefix(lower, "git://") {
		return true
	}
	lower = strings.TrimPrefix(lower, "https://")
	for _, host := range shorthandHosts {
		if strings.HasPrefix(lower, host+"/") {
			return true
		}
	}
	return false
}

// Parse reads a git reference:
//
//	git+https://HOST/PATH[.git][//SUBDIR][#REF]
//	git+http://LOOPBACK[:PORT]/PATH[//SUBDIR][#REF]
//	git+ssh://[USER@]HOST[:PORT]/PATH[//SUBDIR][#REF]
//	git+file:///PATH[//SUBDIR][#REF]
//	git://HOST/PATH[//SUBDIR][#REF]
//	github.com/OWNER/REPO[/SUBDIR][#REF] (and gitlab.com/…)
//	https://github.com/OWNER/REPO[/tree/REF/SUBDIR] (/blob/REF/FILE; gitlab.com/…/-/tree/REF/SUBDIR)
//
// What git could read as an option, and transports other than these, are
// refused.
func Parse(s string) (Reference, error) {
	rest, ref, hasRef := strings.Cut(s, "#")
	if hasRef {
		if err := checkRef(ref); err != nil {
			return Reference{}, invalid(s, err.Error())
		}
	}
	var r Reference
	var err error
	lower := strings.ToLower(rest)
	switch {
	case strings.HasPrefix(lower, Prefix):
		r, err = parseURL(s, rest[len(Prefix):])
	case strings.HasPrefix(lower, "git://"):
		r, err = parseURL(s, rest)
	case strings.HasPrefix(lower, "https://"):
		r, err = parseWeb(s, rest[len("https://"):])
	default:
		r, err = parseShorthand(s, rest)
	}
	if err != nil {
		return Reference{}, err
	}
	if hasRef {
		if r.Ref != "" {
			return Reference{}, invalid(s, fmt.Sprintf("it names the REF twice (%s in the address and #%s)", r.Ref, ref))
		}
		r.Ref = ref
	}
	return r, nil
}

// New is the reference to the tree at subdir of the repository at
// rawURL (https://, ssh://, git://, file://, or http:// to this machine)
// at ref, held to the rules of Parse: for a repository named apart from
// any reference, as a plugin marketplace names a plugin's. subdir and ref
// may be empty.
func New(rawURL, subdir, ref string) (Reference, error) {
	if strings.Contains(rawURL, "#") || strings.Contains(rawURL, "://") && strings.Contains(rawURL[strings.Index(rawURL, "://")+3:], "//") {
		return Reference{}, invalid(rawURL, `a repository URL holds no "#" and no "//" in its path`)
	}
	s := Prefix + rawURL
	if subdir = strings.Trim(subdir, "/"); subdir != "" {
		s += "//" + escapeSubdir(subdir)
	}
	if ref != "" {
		s += "#" + ref
	}
	return Parse(s)
}

// parseURL reads the explicit forms, rest being s without git+ and #REF.
func parseURL(s, rest string) (Reference, error) {
	scheme, _, _ := strings.Cut(rest, "://")
	switch strings.ToLower(scheme) {
	case "https", "http", "ssh", "git", "file":
	default:
		return Reference{}, invalid(s, fmt.Sprintf("transport %q is not one stax fetches from: use https, ssh, git, file, or http to a loopback address", scheme))
	}
	if hasControlOrSpace(rest) {
		return Reference{}, invalid(s, "it holds a space or a control character")
	}
	u, err := url.Parse(rest)
	if err != nil {
		return Reference{}, invalid(s, err.Error())
	}
	if u.RawQuery != "" || u.ForceQuery || u.Opaque != "" {
		return Reference{}, invalid(s, "a repository URL has no query")
	}
	u.Scheme = strings.ToLower(u.Scheme)
	repoPath, subdir, _ := strings.Cut(u.Path, "//")
	u.Path, u.RawPath = repoPath, ""
	if err := checkURL(u); err != nil {
		return Reference{}, invalid(s, err.Error())
	}
	r := Reference{url: u}
	if r.Subdir, err = cleanSubdir(subdir); err != nil {
		return Reference{}, invalid(s, err.Error())
	}
	return r, nil
}

// parseShorthand reads HOST/OWNER/REPO[/SUBDIR] on a shorthand host.
func parseShorthand(s, rest string) (Reference, error) {
	host, p, _ := strings.Cut(rest, "/")
	parts := strings.SplitN(p, "/", 3)
	if !isShorthandHost(host) || len(parts) < 2 || parts[0] == "" || parts[1] == "" {
		return Reference{}, invalid(s, "write github.com/OWNER/REPO[/SUBDIR][#REF], or git+https://HOST/PATH[//SUBDIR][#REF] for another host")
	}
	subdir := ""
	if len(parts) == 3 {
		subdir = parts[2]
	}
	if isWebView(subdir) || strings.Contains(p, "/-/") {
		return parseWeb(s, rest) // an address pasted without https://
	}
	return repository(s, host, parts[0], parts[1], subdir)
}

// parseWeb reads the address of a repository, or of a directory or file
// in it, as a browser shows it on github.com or gitlab.com.
func parseWeb(s, rest string) (Reference, error) {
	rest, _, _ = strings.Cut(rest, "?")
	host, p, _ := strings.Cut(rest, "/")
	if !isShorthandHost(host) {
		return Reference{}, invalid(s, "an https address is taken as a repository only on github.com or gitlab.com: write git+https://HOST/PATH[//SUBDIR][#REF]")
	}
	// A browser writes the path percent-encoded (c%23 for a directory
	// c#): it is decoded as the git+ form's path is, whole before it is
	// split, each part then held to its rule, so that an escaped "/" or
	// ".." is refused as a written one is.
	p, err := url.PathUnescape(strings.TrimSuffix(p, "/"))
	if err != nil {
		return Reference{}, invalid(s, err.Error())
	}
	repo, view, hasView := strings.Cut(p, "/-/") // gitlab's separator; its groups nest
	if !hasView {
		parts := strings.SplitN(p, "/", 3)
		if len(parts) < 2 {
			return Reference{}, invalid(s, "it names no repository: write https://"+host+"/OWNER/REPO")
		}
		repo = parts[0] + "/" + parts[1]
		if len(parts) == 3 {
			view = parts[2]
		}
	}
	owner, name, _ := cutLast(repo, "/")
	if view == "" {
		return repository(s, host, owner, name, "")
	}
	kind, refAndPath, _ := strings.Cut(view, "/")
	if kind != "tree" && kind != "blob" {
		return Reference{}, invalid(s, "it is not the address of a repository, nor of a directory or file in one (…/tree/REF/PATH)")
	}
	ref, sub, _ := strings.Cut(refAndPath, "/")
	if kind == "blob" {
		sub = path.Dir(sub) // a file: the directory it is in
	}
	if err := checkRef(ref); err != nil {
		return Reference{}, invalid(s, err.Error())
	}
	r, err := repository(s, host, owner, name, sub)
	r.Ref = ref
	return r, err
}

// refAfterAt is, for name written REPO@REF as npm writes a version
// (github.com/OWNER/REPO@v1.0.0[/SUBDIR]), the form Parse takes, with REF
// after "#" at the end; empty for any other name, or where s has a REF
// already or names the repository in another spelling (percent-encoded).
func refAfterAt(s, owner, name string) string {
	before, ref, ok := strings.Cut(name, "@")
	i := strings.Index(s, "/"+owner+"/"+name)
	if !ok || before == "" || checkRef(ref) != nil || i < 0 || strings.Contains(s, "#") {
		return ""
	}
	at := i + len("/"+owner+"/"+before)
	fixed := s[:at] + s[at+len("@"+ref):] + "#" + ref
	return fmt.Sprintf(`: a tag or commit is written after "#": %s`, termtext.Escape(userinfo.Mask(fixed)))
}

// repository is the reference to https://HOST/OWNER/NAME.git and subdir.
func repository(s, host, owner, name, subdir string) (Reference, error) {
	name = strings.TrimSuffix(name, ".git")
	segs := append(strings.Split(owner, "/"), name)
	for i, seg := range segs {
		if seg == "" || strings.HasPrefix(seg, "-") || strings.HasPrefix(seg, ".") || strings.ContainsAny(seg, `\:@%`) || hasControlOrSpace(seg) || !utf8.ValidString(seg) {
			why := fmt.Sprintf("%q is not an owner or repository name", seg)
			if i == len(segs)-1 {
				why += refAfterAt(s, owner, seg)
			}
			return Reference{}, invalid(s, why)
		}
	}
	sub, err := cleanSubdir(subdir)
	if err != nil {
		return Reference{}, invalid(s, err.Error())
	}
	u := &url.URL{Scheme: "https", Host: strings.ToLower(host), Path: "/" + owner + "/" + name + ".git"}
	return Reference{url: u, Subdir: sub}, nil
}

// checkURL refuses a repository URL git could be misled by: a host or a
// user that reads as an option (ssh -oProxyCommand=…), plain http
// anywhere but on this machine, and a path missing.
func checkURL(u *url.URL) error {
	host := u.Hostname()
	switch {
	case strings.HasPrefix(host, "-") || strings.HasPrefix(u.User.Username(), "-"):
		return errors.New(`its host or user starts with "-", which git would read as an option`)
	case u.Scheme == "file" && host != "" && !strings.EqualFold(host, "localhost"): // a name without its case, as DNS reads it
		return errors.New("a file URL names no host: write git+file:///PATH")
	case u.Scheme != "file" && host == "":
		return errors.New("it names no host")
	case u.Scheme == "http" && !loopback.Host(host):
		return errors.New("plain http is taken only to this machine (localhost, 127.0.0.1, ::1): use https")
	case u.Path == "" || u.Path == "/":
		return errors.New("it names no repository path")
	case strings.HasPrefix(strings.TrimLeft(u.Path, "/"), "-"):
		return errors.New(`its path starts with "-", which git would read as an option`)
	}
	return nil
}

// checkRef refuses a REF that is no git reference name nor commit, which
// keeps out one git would read as an option (#--upload-pack=…) and one
// that would select something else (a revision expression, a path).
func checkRef(ref string) error {
	why := ""
	switch {
	case ref == "":
		why = "it is empty: leave out # for the highest release or the default branch"
	case strings.HasPrefix(ref, "-"):
		why = `it starts with "-", which git would read as an option`
	case len(ref) > 255:
		why = "it is longer than 255 bytes"
	case !utf8.ValidString(ref):
		// stax.lock, the local store's tag and messages hold text.
		why = "it is not UTF-8"
	case hasControlOrSpace(ref) || strings.ContainsAny(ref, `~^:?*[\`):
		why = `it holds a space, a control character or one of ~^:?*[\`
	case len(hiddentext.ScanName(ref)) > 0:
		// SUBDIR is held to this by layers.CheckPath; REF is written to
		// stax.lock and the local store's tag as it is, and shown in
		// messages: a right-to-left override would make it read as
		// another.
		why = hiddentext.ScanName(ref)[0].Describe()
	case strings.Contains(ref, "..") || strings.Contains(ref, "@{") || strings.Contains(ref, "//") || ref == "@":
		why = `it holds "..", "@{" or "//"`
	case strings.HasPrefix(ref, "/") || strings.HasSuffix(ref, "/") || strings.HasSuffix(ref, ".") || strings.HasSuffix(ref, ".lock"):
		why = `it starts or ends with "/", or ends with "." or ".lock"`
	}
	if why != "" {
		return fmt.Errorf("REF %q is not a tag, branch or commit: %s", ref, why)
	}
	return nil
}

// cleanSubdir holds SUBDIR to the rule of paths in a layer, and to none
// of its elements reading as an option.
func cleanSubdir(subdir string) (string, error) {
	subdir = strings.Trim(subdir, "/")
	if subdir == "" || subdir == "." {
		return "", nil
	}
	if err := layers.CheckPath(subdir); err != nil {
		return "", fmt.Errorf("SUBDIR %w", err)
	}
	if !utf8.ValidString(subdir) {
		// It keys the local store's tag and is written to stax.lock.
		return "", fmt.Errorf("SUBDIR %q is not UTF-8", subdir)
	}
	for seg := range strings.SplitSeq(subdir, "/") {
		if strings.HasPrefix(seg, "-") {
			return "", fmt.Errorf(`SUBDIR %q: an element starts with "-"`, subdir)
		}
	}
	return subdir, nil
}

func hasControlOrSpace(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f })
}

// isWebView reports whether the path after OWNER/REPO is a page of the
// repository's web site (tree/REF/…, blob/REF/…, gitlab's -/tree/…),
// which wins over a SUBDIR of that name, as it does in npx skills.
func isWebView(p string) bool {
	return strings.HasPrefix(p, "tree/") || strings.HasPrefix(p, "blob/") || strings.HasPrefix(p, "-/")
}

func isShorthandHost(host string) bool {
	for _, h := range shorthandHosts {
		if strings.EqualFold(host, h) {
			return true
		}
	}
	return false
}

func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return "", s, false
}

func invalid(s, why string) error {
	return errdefs.Invalid(fmt.Errorf("%w %s: %s", ErrInvalid, termtext.Escape(userinfo.Mask(s)), why))
}

// URL is the repository's URL as git is handed it, with any credentials
// it was written with. Never print it: Display and Repository are for
// people and files.
func (r Reference) URL() string {
	if r.url == nil {
		return ""
	}
	return r.url.String()
}

// Repository is the repository's URL without credentials: what stax
// writes down (stax.lock, annotations) and keys its cache by.
func (r Reference) Repository() string {
	if r.url == nil {
		return ""
	}
	u := *r.url
	if u.Scheme != "ssh" {
		u.User = nil // ssh's user (git@) is no secret, and selects the account
	} else if u.User != nil {
		u.User = url.User(u.User.Username())
	}
	return u.String()
}

// SameRepository is Repository with its host in lower case, as DNS
// reads it, and without the ".git" that github.com and gitlab.com add
// when they look a repository up, so that github.com/OWNER/REPO and
// GitHub.com/OWNER/REPO.git are one repository. Another server may hold
// REPO and REPO.git as two: there the ".git" stays.
func (r Reference) SameRepository() string {
	if r.url == nil {
		return ""
	}
	u := *r.url
	u.Host = strings.ToLower(u.Host)
	if isShorthandHost(u.Hostname()) {
		u.Path, u.RawPath = strings.TrimSuffix(u.Path, ".git"), ""
	}
	r.url = &u
	return r.Repository()
}

// Display is the repository's URL for messages: credentials masked, so
// that a reader sees some were given.
func (r Reference) Display() string {
	return userinfo.Mask(r.URL())
}

// String is the reference in its explicit form, without credentials:
// git+URL[//SUBDIR][#REF]. Parse reads it back.
func (r Reference) String() string {
	s := r.Repository()
	if !strings.HasPrefix(s, "git://") {
		s = Prefix + s
	}
	if r.Subdir != "" {
		s += "//" + escapeSubdir(r.Subdir)
	}
	if r.Ref != "" {
		s += "#" + r.Ref
	}
	return s
}

// escapeSubdir writes subdir as the path of a URL Parse reads it back
// from: a directory may be named with what the grammar gives a meaning
// to ('#' before REF, '?' a query, '%' an escape, a space), and written
// as it is would read back as another SUBDIR and REF.
func escapeSubdir(subdir string) string {
	var b strings.Builder
	for i := 0; i < len(subdir); i++ {
		switch c := subdir[i]; {
		case c == '%' || c == '#' || c == '?' || c <= ' ' || c == 0x7f:
			fmt.Fprintf(&b, "%%%02X", c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
