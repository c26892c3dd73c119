package main

import (
	"context"
	"fmt"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/source"
	"github.com/stax-dev/stax/pkg/stateful"
	"github.com/stax-dev/stax/pkg/target"
)

type inspectOptions struct {
	IO     *IOStreams
	Global *globalOptions
	Remote remoteOptions
	Target string
	Build  buildFlags
	Getenv func(string) string
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
	// Stateful lists the skill's MEMORY.md, EXAMPLES.md and CALIBRATION.md
	// with their counts; absent when the layer was not read.
	Stateful *stateful.Summary `json:"stateful,omitempty"`
}

func newInspectCmd(f *factory, runF func(context.Context, *inspectOptions) error) *cobra.Command {
	opts := &inspectOptions{IO: f.IO, Global: f.Global, Getenv: f.Getenv}
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
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runInspect(cmd.Context(), opts)
		},
	}
	opts.Build.addBuild(cmd, "uncompressed skills layer to read or build", "when building DIR: ")
	opts.Remote.addRemoteOnlyFlag(cmd)
	opts.Remote.addFlags(cmd)
	return cmd
}

func runInspect(ctx context.Context, opts *inspectOptions) error {
	src, err := openArgument(ctx, opts.IO, opts.Global, &opts.Remote, &opts.Build, opts.Getenv, opts.Target)
	if err != nil {
		return err
	}
	defer src.Close()
	pkg, err := src.Package(ctx)
	if err != nil {
		return err
	}
	res := &inspectResult{
		Reference: src.Name, Source: string(src.Kind), Descriptor: src.Descriptor, Manifest: pkg.Manifest,
		Config: pkg.Config, Notices: append([]string{}, pkg.Notices...),
	}
	if src.Kind == target.KindRemote {
		res.Skills = configSkills(pkg)
	} else if res.Skills, err = inspectSkills(ctx, src, pkg); err != nil {
		return err
	}
	mismatched := false
	for _, s := range res.Skills {
		if s.Verified != nil && !*s.Verified {
			mismatched = true
			res.Notices = append(res.Notices, fmt.Sprintf("skill %s: layer content does not match the config digest %s", s.Path, s.Digest))
		}
	}
	if err := writeInspect(opts, res); err != nil || !mismatched {
		return err
	}
	// Shown, but a package whose skills are not what its config says
	// fails verification.
	return errdefs.Corrupt(errReported)
}

// inspectSkills reads the skills layer once and pairs what it holds with
// the config's records.
func inspectSkills(ctx context.Context, src *source.Source, pkg *artifact.Package) ([]inspectedSkill, error) {
	snap, err := src.Snapshot(ctx, pkg)
	if err != nil {
		return nil, err
	}
	skills := make([]inspectedSkill, 0, len(pkg.Config.Skills))
	for _, rec := range pkg.Config.Skills {
		s, ok := snap.Skills[rec.Path]
		verified := ok && s.Digest() == rec.Digest
		item := inspectedSkill{SkillRecord: rec, Verified: &verified}
		if ok {
			item.Files, item.Frontmatter = len(s.Files), s.Frontmatter
			item.Stateful = &s.Stateful
		}
		skills = append(skills, item)
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
