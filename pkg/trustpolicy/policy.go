// Package trustpolicy is the trust policy as data: which registry and
// repository scopes must be signed (mode none, warn or require), and by
// which public keys. It reads and merges policies and picks the rule for
// a reference; package trust verifies packages against it. It links no
// signing code, so reading stax.yaml, which holds a policy, stays light.
package trustpolicy

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/stax-dev/stax/internal/regularfile"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/yamlerr"
)

// FileName is the trust policy in $STAX_HOME.
const FileName = "trust.yaml"

// Mode is what happens to a package that does not verify.
type Mode string

const (
	// ModeNone checks nothing; it is the default.
	ModeNone Mode = "none"
	// ModeWarn checks, and warns of a package that does not verify.
	ModeWarn Mode = "warn"
	// ModeRequire refuses a package that does not verify.
	ModeRequire Mode = "require"
)

// ParseMode reads a mode as flags and files spell it.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case ModeNone, ModeWarn, ModeRequire:
		return m, nil
	}
	return "", fmt.Errorf("verification mode %q: use none, warn or require", s)
}

// Policy is a trust policy: a default mode and signers (keys and keyless
// identities), and scopes that override them for the references they
// cover.
type Policy struct {
	// Mode applies where no scope matches; none when empty.
	Mode Mode `yaml:"mode,omitempty" json:"mode,omitempty"`
	// Keys are public key files, relative to the policy's directory.
	Keys []string `yaml:"keys,omitempty" json:"keys,omitempty"`
	// Identities are the keyless signers trusted by default.
	Identities []Identity `yaml:"identities,omitempty" json:"identities,omitempty"`
	// TrustedRoot is Sigstore's trusted_root.json, relative to the
	// policy's directory, that keyless signatures are checked against.
	TrustedRoot string  `yaml:"trustedRoot,omitempty" json:"trustedRoot,omitempty"`
	Scopes      []Scope `yaml:"scopes,omitempty" json:"scopes,omitempty"`
	// Dir is where relative key paths start; set by Load.
	Dir string `yaml:"-" json:"-"`
}

// Scope is the rule for the references under a registry or repository,
// e.g. "ghcr.io/acme" or "ghcr.io/acme/skills". A scope that names keys
// or identities trusts those signers alone; one that names neither takes
// the default ones.
type Scope struct {
	Scope       string     `yaml:"scope" json:"scope"`
	Mode        Mode       `yaml:"mode,omitempty" json:"mode,omitempty"`
	Keys        []string   `yaml:"keys,omitempty" json:"keys,omitempty"`
	Identities  []Identity `yaml:"identities,omitempty" json:"identities,omitempty"`
	TrustedRoot string     `yaml:"trustedRoot,omitempty" json:"trustedRoot,omitempty"`
}

// Identity is a keyless signer: the subject of its Fulcio certificate (an
// email address, or a URI such as a GitHub Actions workflow) and the OIDC
// issuer that vouched for it, each exact or a regular expression, as
// cosign's --certificate-identity[-regexp] and
// --certificate-oidc-issuer[-regexp] name them.
type Identity struct {
	Issuer        string `yaml:"issuer,omitempty" json:"issuer,omitempty"`
	IssuerRegExp  string `yaml:"issuerRegExp,omitempty" json:"issuerRegExp,omitempty"`
	Subject       string `yaml:"subject,omitempty" json:"subject,omitempty"`
	SubjectRegExp string `yaml:"subjectRegExp,omitempty" json:"subjectRegExp,omitempty"`
}

// Check reports an identity without a subject or an issuer, or with a
// regular expression that does not compile.
func (id Identity) Check() error {
	if id.Subject == "" && id.SubjectRegExp == "" {
		return errors.New("an identity without a subject: give subject or subjectRegExp, the certificate identity to trust")
	}
	if id.Issuer == "" && id.IssuerRegExp == "" {
		return errors.New("an identity without an issuer: give issuer or issuerRegExp, the OIDC issuer to trust")
	}
	for _, re := range []string{id.SubjectRegExp, id.IssuerRegExp} {
		if _, err := regexp.Compile(re); err != nil {
			return fmt.Errorf("identity: %w", err)
		}
	}
	return nil
}

// MaxFileSize bounds a policy file: a few identities and keys per scope.
const MaxFileSize = 1 << 20

// Load reads a policy file; a file that does not exist is the empty
// policy, which checks nothing.
func Load(path string) (*Policy, error) {
	data, err := regularfile.ReadFile(path, MaxFileSize)
	if errors.Is(err, fs.ErrNotExist) {
		return &Policy{}, nil
	}
	if err != nil {
		return nil, err
	}
	var p Policy
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&p); err != nil && !errors.Is(err, io.EOF) {
		return nil, yamlerr.In(path, yamlerr.Translate(err, data, &p))
	}
	p.Dir = filepath.Dir(path)
	if err := p.Check(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &p, nil
}

// Check reports a mode that is not one of the three, and an identity
// that is not complete.
func (p *Policy) Check() error {
	if p.Mode != "" {
		if _, err := ParseMode(string(p.Mode)); err != nil {
			return err
		}
	}
	for _, id := range p.Identities {
		if err := id.Check(); err != nil {
			return err
		}
	}
	for _, s := range p.Scopes {
		if s.Scope == "" {
			return errors.New("a scope without a name: give the registry or repository it covers")
		}
		if s.Mode != "" {
			if _, err := ParseMode(string(s.Mode)); err != nil {
				return fmt.Errorf("scope %s: %w", s.Scope, err)
			}
		}
		for _, id := range s.Identities {
			if err := id.Check(); err != nil {
				return fmt.Errorf("scope %s: %w", s.Scope, err)
			}
		}
	}
	return nil
}

// Merge is base overridden by over (a project's policy over the one in
// $STAX_HOME): over's mode and trusted root, when set, replace the
// default ones; its keys and identities come first; its scopes win over
// base's for the same name. Paths are resolved against each policy's own
// directory.
func Merge(base, over *Policy) *Policy {
	out := &Policy{}
	for _, p := range []*Policy{base, over} {
		if p == nil {
			continue
		}
		if p.Mode != "" {
			out.Mode = p.Mode
		}
		if p.TrustedRoot != "" {
			out.TrustedRoot = p.path(p.TrustedRoot)
		}
		for _, s := range p.Scopes {
			s.Keys = p.paths(s.Keys)
			if s.TrustedRoot != "" {
				s.TrustedRoot = p.path(s.TrustedRoot)
			}
			out.Scopes = append(out.Scopes, s)
		}
	}
	if over != nil {
		out.Keys = append(out.Keys, over.paths(over.Keys)...)
		out.Identities = append(out.Identities, over.Identities...)
	}
	if base != nil {
		out.Keys = append(out.Keys, base.paths(base.Keys)...)
		out.Identities = append(out.Identities, base.Identities...)
	}
	return out
}

// RequiresAny reports whether any package could fall under require.
func (p *Policy) RequiresAny() bool {
	if p.Mode == ModeRequire {
		return true
	}
	for _, s := range p.Scopes {
		if s.Mode == ModeRequire {
			return true
		}
	}
	return false
}

// Rule is what applies to one package.
type Rule struct {
	Mode Mode
	// Keys are paths of public key files.
	Keys []string
}

// Keyless is who may sign one package without a key.
type Keyless struct {
	Identities []Identity
	// TrustedRoot is the path of the trusted_root.json to check against.
	TrustedRoot string
}

// Rule is the rule for the package ref names: that of the most specific
// scope covering it, else the policy's default. A scope without keys or
// identities takes the default keys.
func (p *Policy) Rule(ref string) Rule {
	r, _ := p.rule(ref)
	return r
}

// Keyless is who may sign the package ref names with a Fulcio
// certificate, chosen as Rule chooses keys, and the trusted root to check
// them against: that of the most specific scope naming one, else the
// default.
func (p *Policy) Keyless(ref string) Keyless {
	_, k := p.rule(ref)
	return k
}

func (p *Policy) rule(ref string) (Rule, Keyless) {
	r := Rule{Mode: p.Mode, Keys: p.paths(p.Keys)}
	k := Keyless{Identities: p.Identities}
	if p.TrustedRoot != "" {
		k.TrustedRoot = p.path(p.TrustedRoot)
	}
	// The scopes covering ref, outermost first, so that each takes what it
	// does not name from those enclosing it, wherever they are in the
	// file. On a tie the later scope wins: Merge puts a project's after
	// $STAX_HOME's, and the sort is stable.
	var covering []Scope
	for _, s := range p.Scopes {
		if covers(s.Scope, ref) {
			covering = append(covering, s)
		}
	}
	slices.SortStableFunc(covering, func(a, b Scope) int { return cmp.Compare(len(a.Scope), len(b.Scope)) })
	for _, s := range covering {
		if s.Mode != "" {
			r.Mode = s.Mode
		}
		// A scope that names its signers trusts them alone, so a scope
		// requiring a workflow identity is not also satisfied by the
		// default keys.
		if len(s.Keys) > 0 || len(s.Identities) > 0 {
			r.Keys, k.Identities = p.paths(s.Keys), s.Identities
		}
		if s.TrustedRoot != "" {
			k.TrustedRoot = p.path(s.TrustedRoot)
		}
	}
	if r.Mode == "" {
		r.Mode = ModeNone
	}
	return r, k
}

func (p *Policy) paths(keys []string) []string {
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, p.path(k))
	}
	return out
}

// path is a file the policy names, relative to its directory.
func (p *Policy) path(name string) string {
	if !filepath.IsAbs(name) && p.Dir != "" {
		return filepath.Join(p.Dir, name)
	}
	return name
}

// covers reports whether scope names ref's registry, one of its parent
// namespaces, or its repository.
func covers(scope, ref string) bool {
	scope = strings.TrimSuffix(scope, "/")
	if scope == "*" || scope == ref {
		return true
	}
	if !strings.HasPrefix(ref, scope) {
		return false
	}
	switch ref[len(scope)] {
	case '/', ':', '@':
		return true
	}
	return false
}

// ScopeName is the full reference trust scopes match, e.g.
// docker.io/acme/skills:1.0.0 for acme/skills:1.0.0; a string that is not
// a reference is itself.
func ScopeName(ref string) string {
	if r, err := reference.Parse(ref); err == nil {
		return r.String()
	}
	return ref
}
