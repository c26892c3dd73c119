// Package trust decides which packages must be signed, and by whom, and
// checks them: a trust policy maps registry and repository scopes to the
// public keys trusted there and a mode, none, warn or require.
package trust

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"gopkg.in/yaml.v3"
	"oras.land/oras-go/v2/content"

	"github.com/stax-dev/stax/pkg/signature"
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

// Policy is a trust policy: a default mode and keys, and scopes that
// override them for the references they cover.
type Policy struct {
	// Mode applies where no scope matches; none when empty.
	Mode Mode `yaml:"mode,omitempty" json:"mode,omitempty"`
	// Keys are public key files, relative to the policy's directory.
	Keys   []string `yaml:"keys,omitempty" json:"keys,omitempty"`
	Scopes []Scope  `yaml:"scopes,omitempty" json:"scopes,omitempty"`
	// Dir is where relative key paths start; set by Load.
	Dir string `yaml:"-" json:"-"`
}

// Scope is the rule for the references under a registry or repository,
// e.g. "ghcr.io/acme" or "ghcr.io/acme/skills".
type Scope struct {
	Scope string   `yaml:"scope" json:"scope"`
	Mode  Mode     `yaml:"mode,omitempty" json:"mode,omitempty"`
	Keys  []string `yaml:"keys,omitempty" json:"keys,omitempty"`
}

// Load reads a policy file; a file that does not exist is the empty
// policy, which checks nothing.
func Load(path string) (*Policy, error) {
	data, err := os.ReadFile(path)
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
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	p.Dir = filepath.Dir(path)
	if err := p.Check(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &p, nil
}

// Check reports a mode that is not one of the three.
func (p *Policy) Check() error {
	if p.Mode != "" {
		if _, err := ParseMode(string(p.Mode)); err != nil {
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
	}
	return nil
}

// Merge is base overridden by over (a project's policy over the one in
// $STAX_HOME): over's mode, when set, replaces the default mode; its keys
// come first; its scopes win over base's for the same name. Key paths are
// resolved against each policy's own directory.
func Merge(base, over *Policy) *Policy {
	out := &Policy{}
	for _, p := range []*Policy{base, over} {
		if p == nil {
			continue
		}
		if p.Mode != "" {
			out.Mode = p.Mode
		}
		for _, s := range p.Scopes {
			s.Keys = p.paths(s.Keys)
			out.Scopes = append(out.Scopes, s)
		}
	}
	if over != nil {
		out.Keys = append(out.Keys, over.paths(over.Keys)...)
	}
	if base != nil {
		out.Keys = append(out.Keys, base.paths(base.Keys)...)
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

// Rule is the rule for the package ref names: that of the most specific
// scope covering it, else the policy's default. A scope without keys
// takes the default keys.
func (p *Policy) Rule(ref string) Rule {
	r := Rule{Mode: p.Mode, Keys: p.paths(p.Keys)}
	best := -1
	for _, s := range p.Scopes {
		// On a tie the later scope wins: Merge puts a project's after $STAX_HOME's.
		if covers(s.Scope, ref) && len(s.Scope) >= best {
			best = len(s.Scope)
			if s.Mode != "" {
				r.Mode = s.Mode
			}
			if len(s.Keys) > 0 {
				r.Keys = p.paths(s.Keys)
			}
		}
	}
	if r.Mode == "" {
		r.Mode = ModeNone
	}
	return r
}

func (p *Policy) paths(keys []string) []string {
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		if !filepath.IsAbs(k) && p.Dir != "" {
			k = filepath.Join(p.Dir, k)
		}
		out = append(out, k)
	}
	return out
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

// Package is one package to check.
type Package struct {
	// Ref names the package, as declared; scopes match it.
	Ref string
	// Target holds the package and its signatures.
	Target     content.ReadOnlyGraphStorage
	Descriptor ocispec.Descriptor
}

// Options control Check. The zero value applies the empty policy: nothing
// is checked.
type Options struct {
	// Policy is the trust policy; nil is the empty one.
	Policy *Policy
	// Mode, when set (--verify), replaces the mode of every rule.
	Mode Mode
	// Keys, when set (--key), replace the keys of every rule.
	Keys []string
	// Require lists packages that must verify whatever the policy says,
	// such as those stax.lock records as verified.
	Require map[digest.Digest]bool
	// Warnings receives a line for each package that does not verify in
	// warn mode.
	Warnings io.Writer
	// MaxSize bounds each skills layer read; see layers.ReadOptions.
	MaxSize int64
}

// Outcome is what checking one package found.
type Outcome struct {
	Ref    string
	Digest digest.Digest
	Mode   Mode
	// Verified is set when a trusted signature verified the package.
	Verified *signature.Verified
	// Err is why it did not verify, in warn mode.
	Err error
}

// Check applies the policy to every package before anything is written:
// it fails, matching signature.ErrNotVerified, when a package that must
// verify does not, and warns of those in warn mode.
func Check(ctx context.Context, pkgs []Package, opts Options) ([]Outcome, error) {
	policy := opts.Policy
	if policy == nil {
		policy = &Policy{}
	}
	verifiers := map[string]signature.Verifier{}
	var failed []error
	out := make([]Outcome, 0, len(pkgs))
	for _, p := range pkgs {
		rule := policy.Rule(p.Ref)
		if opts.Mode != "" {
			rule.Mode = opts.Mode
		}
		if len(opts.Keys) > 0 {
			rule.Keys = opts.Keys
		}
		if opts.Require[p.Descriptor.Digest] {
			rule.Mode = ModeRequire
		}
		o := Outcome{Ref: p.Ref, Digest: p.Descriptor.Digest, Mode: rule.Mode}
		if rule.Mode == ModeNone {
			out = append(out, o)
			continue
		}
		if len(rule.Keys) == 0 {
			return nil, fmt.Errorf("%s must be verified (%s), but no key is trusted for it: add keys to the trust policy or pass --key", p.Ref, rule.Mode)
		}
		vs, err := loadVerifiers(verifiers, rule.Keys)
		if err != nil {
			return nil, err
		}
		o.Verified, err = signature.Verify(ctx, p.Target, p.Descriptor, signature.VerifyOptions{Verifiers: vs, MaxSize: opts.MaxSize})
		switch {
		case err == nil:
		case !errors.Is(err, signature.ErrNotVerified):
			return nil, fmt.Errorf("verify %s: %w", p.Ref, err)
		case rule.Mode == ModeRequire:
			failed = append(failed, fmt.Errorf("%s: %w", p.Ref, err))
		default:
			o.Err = err
			if opts.Warnings != nil {
				fmt.Fprintf(opts.Warnings, "warning: %s does not verify: %v\n", p.Ref, err)
			}
		}
		out = append(out, o)
	}
	if len(failed) > 0 {
		return out, errors.Join(failed...)
	}
	return out, nil
}

// LoadVerifiers reads public key files.
func LoadVerifiers(paths []string) ([]signature.Verifier, error) {
	return loadVerifiers(map[string]signature.Verifier{}, paths)
}

func loadVerifiers(cache map[string]signature.Verifier, paths []string) ([]signature.Verifier, error) {
	out := make([]signature.Verifier, 0, len(paths))
	for _, path := range paths {
		v, ok := cache[path]
		if !ok {
			data, err := os.ReadFile(path)
			if err != nil {
				return nil, fmt.Errorf("read public key: %w", err)
			}
			kv, err := signature.LoadPublicKey(data)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			v, cache[path] = kv, kv
		}
		out = append(out, v)
	}
	return out, nil
}
