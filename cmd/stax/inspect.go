package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"
	"oras.land/oras-go/v2/content"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/exitcode"
	"github.com/stax-dev/stax/pkg/pack"
	"github.com/stax-dev/stax/pkg/skill"
	"github.com/stax-dev/stax/pkg/target"
	"github.com/stax-dev/stax/pkg/transfer"
)

type inspectOptions struct {
	IO      *IOStreams
	Global  *globalOptions
	Remote  remoteOptions
	Target  string
	MaxSize string
	// ForceRemote asks the registry even when the local store has the tag.
	ForceRemote bool
}

type inspectResult struct {
	Reference string `json:"reference"`
	// Source is where the package was read: local, layout or remote.
	Source     string             `json:"source"`
	Descriptor ocispec.Descriptor `json:"descriptor"`
	Manifest   ocispec.Manifest   `json:"manifest"`
	Config     *artifact.Config   `json:"config"`
	Skills     []inspectedSkill   `json:"skills"`
	Notices    []string           `json:"notices"`
}

type inspectedSkill struct {
	artifact.SkillRecord
	// Verified says the layer's files hash to the digest the config
	// lists; absent when the layer was not read (a remote package).
	Verified    *bool          `json:"verified,omitempty"`
	Files       int            `json:"files"`
	Frontmatter map[string]any `json:"frontmatter"`
}

func newInspectCmd(streams *IOStreams, global *globalOptions) *cobra.Command {
	opts := &inspectOptions{IO: streams, Global: global}
	cmd := &cobra.Command{
		Use:   "inspect REF|DIR",
		Short: "Show a package's manifest, layers, annotations and skills",
		Long: `Show a stax package: from the local store (NAME:TAG or NAME@DIGEST), from an
OCI layout (oci:PATH[:TAG|@DIGEST]), from a registry, or built on the fly from
a package directory exactly as pack would build it.

A reference is looked up in the local store first, then in its registry;
--remote asks the registry only. For a local package every skill is listed
with its frontmatter, read from the skills layer and checked against the
digest the config records for it. For a remote package only the manifest
and config are fetched, never the layer: skills come from the config.`,
		Example: `  stax inspect example-skills:1.0.0
  stax inspect oci:./out:1.0.0 --output json
  stax inspect ghcr.io/acme/skills:1.0.0 --remote
  stax inspect examples`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Target = args[0]
			return runInspect(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.MaxSize, "max-size", "64MiB", "largest uncompressed skills layer to read; 0 for no limit")
	cmd.Flags().BoolVar(&opts.ForceRemote, "remote", false, "read the package from its registry even if the local store has it")
	opts.Remote.addFlags(cmd)
	return cmd
}

func runInspect(ctx context.Context, opts *inspectOptions) error {
	maxSize, err := parseMaxSize(opts.MaxSize)
	if err != nil {
		return err
	}
	opener, err := opts.Remote.opener(opts.Global)
	if err != nil {
		return err
	}
	scope := localThenRemote
	if opts.ForceRemote {
		scope = remoteOnly
	}
	src, err := openSource(ctx, opener, opts.Target, scope, pack.Options{})
	if err != nil {
		return err
	}
	defer src.Close()

	pkg, err := transfer.Check(ctx, src.Target, src.Descriptor, maxSize)
	if err != nil {
		return err
	}
	res := &inspectResult{
		Reference: src.Name, Source: string(src.Kind), Descriptor: src.Descriptor, Manifest: pkg.Manifest,
		Config: pkg.Config, Notices: append([]string{}, pkg.Notices...),
	}
	if src.Kind == target.KindRemote {
		res.Skills = configSkills(pkg)
	} else if res.Skills, err = inspectSkills(ctx, src, pkg, maxSize); err != nil {
		return err
	}
	for _, s := range res.Skills {
		if s.Verified != nil && !*s.Verified {
			res.Notices = append(res.Notices, fmt.Sprintf("skill %s: layer content does not match the config digest %s", s.Path, s.Digest))
		}
	}
	if opts.Global.json() {
		return writeJSON(opts.IO.Out, res)
	}
	for _, n := range res.Notices {
		fmt.Fprintf(opts.IO.ErrOut, "notice: %s\n", n)
	}
	return printInspect(opts.IO.Out, res)
}

// inspectSkills reads the skills layer once, hashing every file and
// parsing each SKILL.md, and pairs what it finds with the config's records.
func inspectSkills(ctx context.Context, fetcher content.Fetcher, pkg *artifact.Package, maxSize int64) ([]inspectedSkill, error) {
	skills := make([]inspectedSkill, 0, len(pkg.Config.Skills))
	if pkg.Skills == nil {
		return skills, nil
	}
	rc, err := pkg.OpenSkills(ctx, fetcher)
	if err != nil {
		return nil, exitcode.Wrap(exitcode.FileSystem, err)
	}
	defer rc.Close()

	var files []layers.FileDigest
	frontmatter := map[string]map[string]any{}
	err = layers.Walk(rc, layers.ReadOptions{MaxSize: maxSize, Digest: pkg.Skills.Digest}, func(h layers.Header, r io.Reader) error {
		if h.Dir {
			return nil
		}
		hash := sha256.New()
		var head bytes.Buffer
		isSkillFile := path.Base(h.Path) == skill.FileName && strings.Count(h.Path, "/") == 1
		w := io.Writer(hash)
		if isSkillFile {
			// The frontmatter sits at the top; the rest is only hashed.
			w = io.MultiWriter(hash, &limitedBuffer{buf: &head, max: maxFrontmatterRead})
		}
		if _, err := io.Copy(w, r); err != nil {
			return err
		}
		files = append(files, layers.FileDigest{Path: h.Path, Executable: h.Executable, Size: h.Size, Digest: digest.NewDigest(digest.SHA256, hash)})
		if isSkillFile {
			if doc, perr := skill.Parse(head.Bytes()); perr == nil {
				fields, _ := doc.Frontmatter.Fields()
				frontmatter[path.Dir(h.Path)] = fields
			}
		}
		return nil
	})
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Verification, fmt.Errorf("read skills layer %s: %w", pkg.Skills.Digest, err))
	}
	digests := layers.SkillDigests(files)
	counts := map[string]int{}
	for _, f := range files {
		counts[strings.SplitN(f.Path, "/", 2)[0]]++
	}
	for _, rec := range pkg.Config.Skills {
		verified := digests[rec.Path] == rec.Digest
		skills = append(skills, inspectedSkill{
			SkillRecord: rec,
			Verified:    &verified,
			Files:       counts[rec.Path],
			Frontmatter: frontmatter[rec.Path],
		})
	}
	return skills, nil
}

// configSkills lists the skills the config records, for a package whose
// layer is not read.
func configSkills(pkg *artifact.Package) []inspectedSkill {
	skills := make([]inspectedSkill, 0, len(pkg.Config.Skills))
	for _, rec := range pkg.Config.Skills {
		skills = append(skills, inspectedSkill{SkillRecord: rec})
	}
	return skills
}

// maxFrontmatterRead bounds how much of a SKILL.md from a package is kept
// in memory to find its frontmatter.
const maxFrontmatterRead = 1 << 20

// limitedBuffer keeps the first max bytes written and discards the rest.
type limitedBuffer struct {
	buf *bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.buf.Len(); room > 0 {
		l.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func printInspect(w io.Writer, r *inspectResult) error {
	ann := r.Manifest.Annotations
	fmt.Fprintf(w, "Reference:     %s (%s)\n", r.Reference, r.Source)
	fmt.Fprintf(w, "Digest:        %s\n", r.Descriptor.Digest)
	fmt.Fprintf(w, "Artifact type: %s\n", r.Manifest.ArtifactType)
	fmt.Fprintf(w, "Package:       %s %s\n", r.Config.Name, r.Config.Version)
	if r.Config.Description != "" {
		fmt.Fprintf(w, "Description:   %s\n", r.Config.Description)
	}
	fmt.Fprintf(w, "Created:       %s\n", ann[artifact.AnnotationCreated])
	fmt.Fprintf(w, "Annotations:\n")
	for _, k := range sortedKeys(ann) {
		fmt.Fprintf(w, "  %s: %s\n", k, ann[k])
	}
	fmt.Fprintf(w, "Config:        %s %s (%d bytes)\n", r.Manifest.Config.MediaType, r.Manifest.Config.Digest, r.Manifest.Config.Size)
	fmt.Fprintf(w, "Layers:\n")
	for _, l := range r.Manifest.Layers {
		fmt.Fprintf(w, "  %s %s (%d bytes)\n", l.MediaType, l.Digest, l.Size)
		for _, k := range sortedKeys(l.Annotations) {
			fmt.Fprintf(w, "    %s: %s\n", k, l.Annotations[k])
		}
	}
	fmt.Fprintf(w, "Skills (%d):\n", len(r.Skills))
	for _, s := range r.Skills {
		state := "not checked (layer not downloaded)"
		if s.Verified != nil && *s.Verified {
			state = "verified"
		} else if s.Verified != nil {
			state = "DIGEST MISMATCH"
		}
		fmt.Fprintf(w, "  %s", s.Name)
		if s.Version != "" {
			fmt.Fprintf(w, " %s", s.Version)
		}
		if s.Files > 0 {
			fmt.Fprintf(w, "  %s/  %d files  %s  %s\n", s.Path, s.Files, s.Digest, state)
		} else {
			fmt.Fprintf(w, "  %s/  %s  %s\n", s.Path, s.Digest, state)
		}
		if len(s.Frontmatter) > 0 {
			fm, err := yaml.Marshal(s.Frontmatter)
			if err != nil {
				return err
			}
			for _, line := range strings.Split(strings.TrimRight(string(fm), "\n"), "\n") {
				fmt.Fprintf(w, "    %s\n", line)
			}
		}
	}
	return nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
