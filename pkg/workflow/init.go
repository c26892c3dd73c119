package workflow

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/staxyaml"
)

// InitOptions say what stax.yaml Init writes and where.
type InitOptions struct {
	// Dir is the project directory, created if missing. Required.
	Dir string
	// Consumer writes only an install: section, for a project that
	// installs packages and publishes none; false writes Definition.
	Consumer bool
	// Definition is the package definition written without Consumer. An
	// empty Name is Dir's name; Skills is the skills directory, relative
	// to Dir, created if missing.
	Definition staxyaml.Definition
	// Force replaces an existing stax.yaml; false refuses to.
	Force bool
}

// InitResult is the stax.yaml Init wrote.
type InitResult struct {
	Path       string              `json:"path"`
	Definition staxyaml.Definition `json:"definition"`
	// SkillsDir is the skills directory of a package definition; empty
	// for a consumer's.
	SkillsDir string `json:"-"`
}

// consumerYAML is the stax.yaml of a project that only installs: stax add
// fills its sources.
const consumerYAML = `# stax project: https://github.com/stax-dev/stax#staxyaml
# Add packages with: stax add REF
install:
  sources: []
`

// Init writes a project's stax.yaml: a package definition, with its
// skills directory, or with Consumer only an install: section.
func Init(opts InitOptions) (*InitResult, error) {
	if opts.Consumer {
		return initConsumer(opts)
	}
	def := opts.Definition
	if def.Name == "" {
		def.Name = staxyaml.NameFromDir(opts.Dir)
	}
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return nil, errdefs.MarkLocal(fmt.Errorf("create %s: %w", opts.Dir, err))
	}
	path := filepath.Join(opts.Dir, staxyaml.FileName)
	if err := staxyaml.Write(path, &def, opts.Force); err != nil {
		return nil, err
	}
	skills := filepath.Join(opts.Dir, filepath.FromSlash(def.Skills))
	if err := os.MkdirAll(skills, 0o755); err != nil {
		return nil, errdefs.MarkLocal(fmt.Errorf("create skills directory %s: %w", skills, err))
	}
	return &InitResult{Path: path, Definition: def, SkillsDir: skills}, nil
}

func initConsumer(opts InitOptions) (*InitResult, error) {
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return nil, errdefs.MarkLocal(fmt.Errorf("create %s: %w", opts.Dir, err))
	}
	path := filepath.Join(opts.Dir, staxyaml.FileName)
	if err := staxyaml.WriteFile(path, []byte(consumerYAML), opts.Force); err != nil {
		return nil, err
	}
	def := staxyaml.Definition{Install: &staxyaml.InstallSpec{Sources: []staxyaml.Dependency{}}}
	return &InitResult{Path: path, Definition: def}, nil
}
