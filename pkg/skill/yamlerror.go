package skill

import (
	"errors"

	"github.com/stax-dev/stax/pkg/yamlerr"
)

// yamlError turns an error of yaml.Unmarshal on the frontmatter fm into a
// ParseError that points at a line of the file.
func yamlError(err error, fm []byte) *ParseError {
	msg, line := err.Error(), 0
	var e *yamlerr.Error
	if errors.As(yamlerr.Translate(err, fm, nil), &e) {
		msg, line = e.Message, e.Line
	}
	pe := &ParseError{Err: ErrYAML, Detail: "invalid YAML in frontmatter: " + msg}
	if line > 0 {
		pe.Line = line + frontmatterOffset
	}
	return pe
}
