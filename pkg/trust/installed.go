package trust

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/signature"
)

// InstalledSkill is a skill stax installed from a package.
type InstalledSkill struct {
	// Dir is the installed skill's directory.
	Dir string
	// Path is the skill's directory in its package.
	Path string
	// Ref and Digest name the package it came from.
	Ref    string
	Digest digest.Digest
}

// Source opens the package ref@d names, to find its signatures; close
// releases it.
type Source func(ctx context.Context, ref string, d digest.Digest) (t content.ReadOnlyGraphStorage, desc ocispec.Descriptor, close func(), err error)

// SignedDrift is an installed skill whose files differ from the statement
// its package's signature signs.
type SignedDrift struct {
	Dir string `json:"dir"`
	// Files are the differing files, each "PATH changed", "PATH added" or
	// "PATH removed".
	Files []string `json:"files"`
}

// CheckInstalled compares every file of each installed skill, stateful
// siblings included, with the signed statement of its package, verified
// with verifiers. SKILL.md is left out: install substitutes variables in
// it, so it cannot match the signed bytes, and the install record checks
// it instead. A package that does not verify is an error matching
// signature.ErrNotVerified.
func CheckInstalled(ctx context.Context, skills []InstalledSkill, open Source, verifiers []signature.Verifier, maxSize int64) ([]SignedDrift, error) {
	statements := map[digest.Digest]*signature.Provenance{}
	var out []SignedDrift
	for _, s := range skills {
		prov, ok := statements[s.Digest]
		if !ok {
			t, desc, closeFn, err := open(ctx, s.Ref, s.Digest)
			if err != nil {
				return nil, err
			}
			prov, err = signedFiles(ctx, t, desc, verifiers, maxSize)
			closeFn()
			if err != nil {
				return nil, fmt.Errorf("%s: %w", s.Ref, err)
			}
			statements[s.Digest] = prov
		}
		signed, ok := prov.Skill(s.Path)
		if !ok {
			out = append(out, SignedDrift{Dir: s.Dir, Files: []string{"the signed statement has no skill " + s.Path}})
			continue
		}
		installed, err := hashDir(s.Dir)
		if err != nil {
			return nil, err
		}
		want := withoutSkillFile(*signed)
		got := withoutSkillFile(signature.SkillFiles{Path: s.Path, Files: installed})
		if diffs := signature.Compare([]signature.SkillFiles{want}, []signature.SkillFiles{got}); len(diffs) > 0 {
			for i := range diffs {
				diffs[i] = strings.TrimPrefix(diffs[i], s.Path+"/")
			}
			out = append(out, SignedDrift{Dir: s.Dir, Files: diffs})
		}
	}
	return out, nil
}

// signedFiles verifies the package at desc and returns the files its
// signature vouches for. A stax statement lists them; a signature of the
// manifest alone (cosign's bundle or .sig, a keyless one) fixes its layer
// by digest, so they are read from the layer, which must match it.
func signedFiles(ctx context.Context, t content.ReadOnlyGraphStorage, desc ocispec.Descriptor, verifiers []signature.Verifier, maxSize int64) (*signature.Provenance, error) {
	v, err := signature.Verify(ctx, t, desc, signature.VerifyOptions{Verifiers: verifiers, Limits: layers.Limits{MaxSize: maxSize}})
	if err != nil {
		return nil, err
	}
	if v.Provenance != nil {
		return v.Provenance, nil
	}
	pkg, err := artifact.Fetch(ctx, t, desc)
	if err != nil {
		return nil, err
	}
	skills, err := signature.Contents(ctx, t, pkg, layers.Limits{MaxSize: maxSize})
	if err != nil {
		return nil, err
	}
	return &signature.Provenance{Name: pkg.Config.Name, Version: pkg.Config.Version, Skills: skills}, nil
}

func withoutSkillFile(s signature.SkillFiles) signature.SkillFiles {
	s.Files = slices.DeleteFunc(slices.Clone(s.Files), func(f signature.FileHash) bool { return f.Path == "SKILL.md" })
	return s
}

// hashDir hashes every regular file under dir, refusing to follow links
// out of it: it goes through os.Root.
func hashDir(dir string) ([]signature.FileHash, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	defer root.Close()
	var out []signature.FileHash
	err = fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !d.Type().IsRegular() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		f, err := root.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			return err
		}
		out = append(out, signature.FileHash{Path: p, SHA256: hex.EncodeToString(h.Sum(nil)), Executable: info.Mode()&0o111 != 0})
		return nil
	})
	return out, err
}
