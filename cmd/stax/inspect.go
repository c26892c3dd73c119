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
	"github.com/stax-dev/stax/pkg/skill"
)

type inspectOptions struct {
	IO      *IOStreams
	Global  *globalOptions
	Target  string
	MaxSize string
}

type inspectResult struct {
	Reference  string             `json:"reference"`
	Descriptor ocispec.Descriptor `json:"descriptor"`
	Manifest   ocispec.Manifest   `json:"manifest"`
	Config     *artifact.Config   `json:"config"`
	Skills     []inspectedSkill   `json:"skills"`
	Notices    []string           `json:"notices"`
}

type inspectedSkill struct {
	artifact.SkillRecord
	// Verified says the layer's files hash to the digest the config lists.
	Verified    bool           `json:"verified"`
	Files       int            `json:"files"`
	Frontmatter map[string]any `json:"frontmatter"`
}

func newInspectCmd(streams *IOStreams, global *globalOptions) *cobra.Command {
	opts := &inspectOptions{IO: streams, Global: global}
	cmd := &cobra.Command{
		Use:   "inspect REF|DIR",
		Short: "Show a package's manifest, layers, annotations and skills",
		Long: `Show a stax package: from the local store (NAME:TAG or NAME@DIGEST), from an
OCI layout (oci:PATH[:TAG|@DIGEST]), or built on the fly from a package
directory exactly as pack would build it. Every skill is listed with its
frontmatter, read from the skills layer, and checked against the digest
the config records for it.`,
		Example: `  stax inspect example-skills:1.0.0
  stax inspect oci:./out:1.0.0 --output json
  stax inspect examples`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Target = args[0]
			return runInspect(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.MaxSize, "max-size", "64MiB", "largest uncompressed skills layer to read; 0 for no limit")
	return cmd
}

func runInspect(ctx context.Context, opts *inspectOptions) error {
	maxSize, err := parseMaxSize(opts.MaxSize)
	if err != nil {
		return err
	}
	src, err := openSource(ctx, opts.Global, opts.Target)
	if err != nil {
		return err
	}
	defer src.Close()

	pkg, err := artifact.Fetch(ctx, src.Storage, src.Descriptor)
	if err != nil {
		return exitcode.Wrap(exitcode.Verification, err)
	}
	res := &inspectResult{
		Reference: src.Name, Descriptor: src.Descriptor, Manifest: pkg.Manifest,
		Config: pkg.Config, Notices: append([]string{}, pkg.Notices...),
	}
	if res.Skills, err = inspectSkills(ctx, src.Storage, pkg, maxSize); err != nil {
		return err
	}
	for _, s := range res.Skills {
		if !s.Verified {
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
		skills = append(skills, inspectedSkill{
			SkillRecord: rec,
			Verified:    digests[rec.Path] == rec.Digest,
			Files:       counts[rec.Path],
			Frontmatter: frontmatter[rec.Path],
		})
	}
	return skills, nil
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
	fmt.Fprintf(w, "Reference:     %s\n", r.Reference)
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
		state := "verified"
		if !s.Verified {
			state = "DIGEST MISMATCH"
		}
		fmt.Fprintf(w, "  %s", s.Name)
		if s.Version != "" {
			fmt.Fprintf(w, " %s", s.Version)
		}
		fmt.Fprintf(w, "  %s/  %d files  %s  %s\n", s.Path, s.Files, s.Digest, state)
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
