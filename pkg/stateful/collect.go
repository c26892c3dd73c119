package stateful

import (
	"io"
	"strings"

	"github.com/stax-dev/stax/internal/regularfile"
)

// MaxFileSize bounds how much of one sibling file a Collector keeps in
// memory; a layer may come from a hostile registry.
const MaxFileSize = 8 << 20

// Collector gathers the sibling files of every skill while a skills layer
// is walked (layers.Walk), so that a reader of packages learns about the
// siblings in the same pass that hashes the files.
type Collector struct {
	// files maps a skill directory to its siblings by name.
	files map[string]map[string][]byte
}

// NewCollector returns an empty Collector.
func NewCollector() *Collector { return &Collector{files: map[string]map[string][]byte{}} }

// Wants reports whether the layer path is a sibling at the top of a skill.
func Wants(layerPath string) bool {
	_, name, ok := strings.Cut(layerPath, "/")
	return ok && IsSibling(name)
}

// Add keeps the content of the layer path when it is a sibling file at
// the top of a skill, and reads nothing otherwise.
func (c *Collector) Add(layerPath string, r io.Reader) error {
	if !Wants(layerPath) {
		return nil
	}
	dir, name, _ := strings.Cut(layerPath, "/")
	data, err := regularfile.ReadAll(r, layerPath, MaxFileSize)
	if err != nil {
		return err
	}
	if c.files[dir] == nil {
		c.files[dir] = map[string][]byte{}
	}
	c.files[dir][name] = data
	return nil
}

// Set parses the siblings collected for a skill directory.
func (c *Collector) Set(dir string) Set { return ParseSet(c.files[dir]) }
