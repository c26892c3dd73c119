package artifact

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	jsonv1 "github.com/go-json-experiment/json/v1"
	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/errdefs"
)

// Config is the config blob of a stax package. A consumer can list and
// verify the skills from it without downloading the skills layer.
type Config struct {
	SpecVersion string   `json:"specVersion"`
	Kind        string   `json:"kind"`
	Name        string   `json:"name"`
	Version     string   `json:"version"`
	Description string   `json:"description,omitempty"`
	Author      string   `json:"author,omitempty"`
	License     string   `json:"license,omitempty"`
	Tags        []string `json:"tags,omitempty"`
	// Adapter is always written, empty: the reference TypeScript
	// materializer crashes on a config without it.
	Adapter map[string]any `json:"adapter"`
	Skills  []SkillRecord  `json:"skills"`
	// Packages are the resolved dependencies, in declaration order.
	Packages []PackageRef `json:"packages,omitempty"`
}

// PackageRef is a dependency resolved to an exact digest.
type PackageRef struct {
	Digest digest.Digest `json:"digest"`
	Kind   string        `json:"kind"`
	// Ref is the reference as declared.
	Ref string `json:"ref"`
}

// PackagesLayer is the content of the packages layer.
type PackagesLayer struct {
	Packages    []PackageRef `json:"packages"`
	SpecVersion string       `json:"specVersion"`
}

// SkillRecord describes one skill of the skills layer.
type SkillRecord struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Version     string `json:"version,omitempty"`
	// Path is the skill's top-level directory in the layer; merges and
	// installs key skills by it.
	Path string `json:"path"`
	// Digest is layers.TreeDigest over the skill's files.
	Digest digest.Digest `json:"digest"`
}

// MarshalCanonical encodes c as canonical JSON: keys sorted at every level,
// no insignificant whitespace, no HTML escaping. Identical configs give
// identical bytes, which keeps manifest digests reproducible.
func (c *Config) MarshalCanonical() ([]byte, error) {
	if c.Adapter == nil {
		c.Adapter = map[string]any{}
	}
	if c.Skills == nil {
		c.Skills = []SkillRecord{}
	}
	// The skill records are most of a config, thousands in a large
	// library: encoded one at a time into the canonical config without
	// them, they cost no more memory than the bytes written.
	rest := *c
	rest.Skills = []SkillRecord{}
	head, err := Canonical(&rest)
	if err != nil {
		return nil, err
	}
	start, end, err := memberValue(head, "skills")
	if err != nil || start < 0 {
		return nil, fmt.Errorf("encode canonical JSON: no skills in %s (%v)", head, err)
	}
	size := len(head)
	for _, s := range c.Skills {
		size += len(`{"description":"","digest":"","name":"","path":"","version":""},`) +
			len(s.Description) + len(s.Digest) + len(s.Name) + len(s.Path) + len(s.Version)
	}
	out := bytes.NewBuffer(make([]byte, 0, size))
	out.Write(head[:start])
	out.WriteByte('[')
	enc := canonicalizer{out: out}
	for i, s := range c.Skills {
		if i > 0 {
			out.WriteByte(',')
		}
		raw, err := json.Marshal(s)
		if err != nil {
			return nil, fmt.Errorf("encode canonical JSON: %w", err)
		}
		if err := enc.whole(raw); err != nil {
			return nil, err
		}
	}
	out.WriteByte(']')
	out.Write(head[end:])
	return out.Bytes(), nil
}

// DropDescriptions forgets the description of every skill record: a
// reader that has no use for them (an install) holds a third less of a
// config, which in a library of thousands of skills is most of what it
// holds a skill.
func (c *Config) DropDescriptions() {
	for i := range c.Skills {
		c.Skills[i].Description = ""
	}
}

// validateDigest is d.Validate, without go-digest's regular expression
// for the sha256 digests of every skill record of every config read.
func validateDigest(d digest.Digest) error {
	if hex, ok := strings.CutPrefix(string(d), "sha256:"); ok && len(hex) == 64 &&
		!strings.ContainsFunc(hex, func(r rune) bool { return (r < '0' || r > '9') && (r < 'a' || r > 'f') }) {
		return nil
	}
	return d.Validate()
}

// ParseConfig decodes a config blob and checks what every reader relies on.
func ParseConfig(data []byte) (*Config, error) {
	var c Config
	// With encoding/json's semantics, in the decoder of encoding/json/v2,
	// which reads a config of thousands of skill records in one pass.
	if err := jsonv1.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("config is not valid JSON: %w", err)
	}
	if err := c.check(); err != nil {
		return nil, err
	}
	return &c, nil
}

// check is what ParseConfig checks of a decoded config.
func (c *Config) check() error {
	if c.SpecVersion == "" {
		return fmt.Errorf("config has no specVersion")
	}
	switch c.Kind {
	case KindPackage, KindAgent:
	case "":
		return fmt.Errorf("config has no kind")
	default:
		return fmt.Errorf("config kind %q is not a package (want %q)", c.Kind, KindPackage)
	}
	return c.checkRecords()
}

// checkRecords refuses skill and package records that consumers could not
// use safely: skill paths become directory names on disk, so each must be
// one safe path segment, and each digest must be well formed.
func (c *Config) checkRecords() error {
	seen := map[string]bool{}
	for _, s := range c.Skills {
		if err := layers.CheckName(s.Path); err != nil {
			// A package that names a skill as no directory may be named is
			// refused as what it would have done: a materialization.
			return errdefs.Precondition(fmt.Errorf("skill path: %w", err))
		}
		if seen[s.Path] {
			return fmt.Errorf("skill path %q is listed twice", s.Path)
		}
		seen[s.Path] = true
		if err := validateDigest(s.Digest); err != nil {
			return fmt.Errorf("skill %s: digest %q: %v", s.Path, s.Digest, err)
		}
	}
	for _, p := range c.Packages {
		if err := p.Digest.Validate(); err != nil {
			return fmt.Errorf("package %s: digest %q: %v", p.Ref, p.Digest, err)
		}
	}
	return nil
}
