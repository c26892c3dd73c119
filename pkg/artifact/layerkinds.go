package artifact

import (
	"slices"
	"strings"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/stax-dev/stax/layers"
)

// Media types of the layers of the stax artifact family that stax reads
// but does not install: an agent artifact carries them beside its skills.
const (
	MediaTypeRules           = "application/vnd.stax.rules.v1.tar+gzip"
	MediaTypeKnowledge       = "application/vnd.stax.knowledge.v1.tar+gzip"
	MediaTypeMemory          = "application/vnd.stax.memory.v1.tar+gzip"
	MediaTypeSurfaces        = "application/vnd.stax.surfaces.v1.tar+gzip"
	MediaTypeInstructionTree = "application/vnd.stax.instruction-tree.v1.tar+gzip"
	MediaTypePrompt          = "application/vnd.stax.prompt.v1+markdown"
	MediaTypePersona         = "application/vnd.stax.persona.v1+json"
	MediaTypeMCP             = "application/vnd.stax.mcp.v1+json"
	MediaTypeSubagents       = "application/vnd.stax.subagents.v1+json"
	MediaTypeSecrets         = "application/vnd.stax.secrets.v1+json"
)

// layerKinds names the layers of the family in messages.
var layerKinds = map[string]string{
	layers.MediaTypeSkills:   "skills",
	MediaTypePackages:        "packages",
	MediaTypeRules:           "rules",
	MediaTypeKnowledge:       "knowledge",
	MediaTypeMemory:          "memory",
	MediaTypeSurfaces:        "surfaces",
	MediaTypeInstructionTree: "instruction tree",
	MediaTypePrompt:          "prompt",
	MediaTypePersona:         "persona",
	MediaTypeMCP:             "MCP server configs",
	MediaTypeSubagents:       "subagents",
	MediaTypeSecrets:         "secrets",
}

// LayerKind is how messages name a layer of mediaType: its kind for the
// layers of the stax family, else the media type itself.
func LayerKind(mediaType string) string {
	if kind, ok := layerKinds[mediaType]; ok {
		return kind
	}
	return mediaType
}

// NotInstalled lists the layers of p that stax does not install: every
// layer but the skills layer, the packages layer (whose dependencies are
// resolved and installed in their own right) and the OCI empty
// descriptor an empty artifact carries.
func (p *Package) NotInstalled() []ocispec.Descriptor {
	var out []ocispec.Descriptor
	for _, l := range p.Manifest.Layers {
		switch l.MediaType {
		case layers.MediaTypeSkills, MediaTypePackages, ocispec.MediaTypeEmptyJSON:
			continue
		}
		out = append(out, l)
	}
	return out
}

// NotInstalledKinds names the kinds of the layers NotInstalled lists,
// each once, in the manifest's order.
func (p *Package) NotInstalledKinds() []string {
	var kinds []string
	for _, l := range p.NotInstalled() {
		if kind := LayerKind(l.MediaType); !slices.Contains(kinds, kind) {
			kinds = append(kinds, kind)
		}
	}
	return kinds
}

// NotInstalledWarning says that the package named name carries layers of
// the kinds given (see NotInstalledKinds), which stax does not install;
// empty when there are none.
func NotInstalledWarning(name string, kinds []string) string {
	if len(kinds) == 0 {
		return ""
	}
	return name + " carries " + strings.Join(kinds, ", ") + ", which stax does not install: stax installs skills only"
}
