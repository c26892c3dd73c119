package layers

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/stax-dev/stax/internal/regularfile"
)

// alwaysIgnored are directory names never packaged, at any depth: version
// control and stax's own state are not skill content.
var alwaysIgnored = map[string]bool{".git": true, ".stax": true}

// maxIgnoreSize bounds an ignore file: a few hundred patterns.
const maxIgnoreSize = 1 << 20

// loadIgnore reads the patterns of an ignore file. A missing file means no
// patterns; other read errors are returned because silently packaging what
// the user meant to exclude is worse than failing. The file is in the
// package, which may come from anyone: it is read as every file a user
// names is (internal/regularfile), a regular file only, opened without
// blocking and refused past maxIgnoreSize.
func loadIgnore(file string) (gitignore.Matcher, error) {
	data, err := regularfile.ReadFile(file, maxIgnoreSize)
	if errors.Is(err, fs.ErrNotExist) {
		return gitignore.NewMatcher(nil), nil
	}
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
