package layers

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/stax-dev/stax/pkg/errdefs"
)

// alwaysIgnored are directory names never packaged, at any depth: version
// control and stax's own state are not skill content.
var alwaysIgnored = map[string]bool{".git": true, ".stax": true}

// maxIgnoreSize bounds an ignore file: a few hundred patterns.
const maxIgnoreSize = 1 << 20

// loadIgnore reads the patterns of an ignore file. A missing file means no
// patterns; other read errors are returned because silently packaging what
// the user meant to exclude is worse than failing. The file is in the
// package, which may come from anyone: one that is not a regular file (a
// named pipe would block the open for ever) or is over maxIgnoreSize is
// refused before it is opened. (internal/regularfile, which checks on the
// open file, formats its sizes with this package.)
func loadIgnore(file string) (gitignore.Matcher, error) {
	info, err := os.Stat(file)
	if errors.Is(err, fs.ErrNotExist) {
		return gitignore.NewMatcher(nil), nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	if !info.Mode().IsRegular() || info.Size() > maxIgnoreSize {
		return nil, errdefs.Invalid(fmt.Errorf("%s must be a regular file of at most %s", file, FormatSize(maxIgnoreSize)))
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxIgnoreSize))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	return gitignore.NewMatcher(parseIgnore(data)), nil
}

// parseIgnore applies gitignore's line rules: blank lines and lines starting
// with '#' are skipped; trailing spaces and CRLF endings are handled.
func parseIgnore(data []byte) []gitignore.Pattern {
	var ps []gitignore.Pattern
	for line := range strings.SplitSeq(string(data), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, nil))
	}
	return ps
}
