package signature

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/errdefs"
)

// In-toto names of the signed statement.
const (
	StatementType = "https://in-toto.io/Statement/v1"
	// PredicateType marks a statement about a stax package.
	PredicateType = "https://stax.dev/attestation/package/v1"
	// PayloadTypeInToto is the DSSE payload type of an in-toto statement.
	PayloadTypeInToto = "application/vnd.in-toto+json"
)

// Statement is the in-toto statement a stax signature signs.
type Statement struct {
	Type          string      `json:"_type"`
	Subject       []Subject   `json:"subject"`
	PredicateType string      `json:"predicateType"`
	Predicate     *Provenance `json:"predicate"`
}

// Subject is the signed manifest.
type Subject struct {
	Name   string            `json:"name"`
	Digest map[string]string `json:"digest"`
}

// Provenance is the predicate: what the package holds, and who signed it
// when, so that the unsigned signature config can be checked against it.
type Provenance struct {
	Name      string       `json:"name"`
	Version   string       `json:"version"`
	Skills    []SkillFiles `json:"skills"`
	Signer    string       `json:"signer"`
	SignedAt  string       `json:"signedAt"`
	Algorithm string       `json:"algorithm"`
}

// SkillFiles is one skill of the package and the digest of each of its
// files, stateful siblings (MEMORY.md, EXAMPLES.md, CALIBRATION.md) included.
type SkillFiles struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
	// Path is the skill's directory in the skills layer.
	Path  string     `json:"path"`
	Files []FileHash `json:"files"`
}

// FileHash is a file of a skill, its path relative to the skill directory.
type FileHash struct {
	Path       string `json:"path"`
	SHA256     string `json:"sha256"`
	Executable bool   `json:"executable,omitempty"`
}

// Skill returns the skill at path, if the statement lists it.
func (p *Provenance) Skill(path string) (*SkillFiles, bool) {
	for i := range p.Skills {
		if p.Skills[i].Path == path {
			return &p.Skills[i], true
		}
	}
	return nil, false
}

// Contents reads the skills layer of pkg from fetcher and lists every
// skill's files with their digests, in the order of the config's records.
// A config that lists no skills (as other stax writers' configs do) leaves
// the layer to say what they are, as pull reads it: each top-level
// directory is a skill, and they are listed in its order.
func Contents(ctx context.Context, fetcher content.Fetcher, pkg *artifact.Package, limits layers.Limits) ([]SkillFiles, error) {
	fromLayer := len(pkg.Config.Skills) == 0
	skills := make([]SkillFiles, 0, len(pkg.Config.Skills))
	index := map[string]int{}
	for _, r := range pkg.Config.Skills {
		index[r.Path] = len(skills)
		skills = append(skills, SkillFiles{Name: r.Name, Version: r.Version, Path: r.Path, Files: []FileHash{}})
	}
	rc, err := pkg.OpenSkills(ctx, fetcher)
	if err != nil || rc == nil {
		return skills, err
	}
	defer rc.Close()
	err = layers.Walk(rc, layers.ReadOptions{Limits: limits, Digest: pkg.Skills.Digest}, func(h layers.Header, r io.Reader) error {
		if h.Dir {
			return nil
		}
		dir, rest, ok := strings.Cut(h.Path, "/")
		if !ok {
			return nil // a file outside every skill
		}
		i, ok := index[dir]
		if !ok && fromLayer {
			i = len(skills)
			index[dir] = i
			skills = append(skills, SkillFiles{Name: dir, Path: dir, Files: []FileHash{}})
		} else if !ok {
			return errdefs.MarkDataLoss(fmt.Errorf("skills layer holds %s, in no skill the config lists", h.Path))
		}
		sum := sha256.New()
		if _, err := io.Copy(sum, r); err != nil {
			return err
		}
		skills[i].Files = append(skills[i].Files, FileHash{Path: rest, SHA256: hex.EncodeToString(sum.Sum(nil)), Executable: h.Executable})
		return nil
	})
	if err != nil {
		err = fmt.Errorf("read skills layer %s: %w", pkg.Skills.Digest, err)
		if errors.Is(err, content.ErrMismatchedDigest) || errors.Is(err, io.ErrUnexpectedEOF) {
			// The blob is not the layer the manifest names (replaced, or
			// cut short): what signs the manifest does not sign these
			// bytes, which is a verification failure wherever they came
			// from.
			return nil, errdefs.MarkDataLoss(fmt.Errorf("%w: the layer was altered since the package was made; fetch it again from its source", err))
		}
		if malformedArchive(err) || layers.Class(err) == errdefs.FailedPrecondition {
			// What the layer holds, not how it was fetched: the package
			// is at fault, never the registry that served it.
			return nil, errdefs.With(layers.Class(err), err)
		}
		return nil, err
	}
	for i := range skills {
		slices.SortFunc(skills[i].Files, func(a, b FileHash) int { return strings.Compare(a.Path, b.Path) })
	}
	return skills, nil
}

// newStatement is the statement that signs the package at desc.
func newStatement(name string, desc ocispec.Descriptor, prov *Provenance) ([]byte, error) {
	st := Statement{
		Type:          StatementType,
		Subject:       []Subject{{Name: name, Digest: map[string]string{string(desc.Digest.Algorithm()): desc.Digest.Encoded()}}},
		PredicateType: PredicateType,
		Predicate:     prov,
	}
	return artifact.Canonical(st)
}

// ParseStatement decodes a statement, such as a verified payload.
func ParseStatement(payload []byte) (*Statement, error) {
	var st Statement
	if err := json.Unmarshal(payload, &st); err != nil {
		return nil, fmt.Errorf("statement is not valid JSON: %w", err)
	}
	return &st, nil
}

// malformedArchive reports whether err says a stream is no tar+gzip
// archive, as opposed to one that could not be read.
func malformedArchive(err error) bool {
	var bad *layers.CorruptError
	return errors.Is(err, gzip.ErrHeader) || errors.Is(err, gzip.ErrChecksum) || errors.Is(err, tar.ErrHeader) ||
		(errors.As(err, &bad) && bad.Intact)
}
