// Package skillgen writes synthetic skill libraries for benchmarks: valid
// skills of about 70 KB each in four files, text that compresses like
// real prose, the same bytes for the same arguments on every machine.
package skillgen

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
)

// Name is the directory name of the i-th generated skill.
func Name(i int) string { return fmt.Sprintf("skill-%05d", i) }

var words = strings.Fields(`the skill reads a file and writes a summary of each section with the
steps an agent follows when a test fails build logs show the error then run the script again
check inputs outputs caches retries budget memory examples calibration reference assets data
table index query schema migration deploy review patch commit branch release version lock`)

// text is n bytes of word salad from rng, in lines of about 72 bytes.
func text(rng *rand.Rand, n int) string {
	var b strings.Builder
	b.Grow(n + 16)
	line := 0
	for b.Len() < n {
		w := words[rng.Intn(len(words))]
		b.WriteString(w)
		line += len(w) + 1
		if line > 72 {
			b.WriteByte('\n')
			line = 0
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// DefaultSize is the size of a generated skill when Write is given 0.
const DefaultSize = 70000

// Write creates skills first..first+count-1 under dir, each of about size
// bytes (DefaultSize when 0) in a SKILL.md, an executable script, a
// reference and an asset. Skill i has the same files whatever first and
// count are; variant changes their content, so that overlapping
// libraries can differ.
func Write(dir string, first, count, variant, size int) error {
	if size <= 0 {
		size = DefaultSize
	}
	part := func(share int) int { return size * share / 70 }
	for i := first; i < first+count; i++ {
		name := Name(i)
		rng := rand.New(rand.NewSource(int64(i)*7919 + int64(variant)))
		files := map[string]string{
			"SKILL.md": fmt.Sprintf("---\nname: %s\ndescription: Generated skill %d for benchmarks. Use when measuring how stax packs and installs a large library.\n---\n\n# %s\n\nRun `${STAX_SKILL_DIR}/scripts/run.sh`; follow [the guide](references/guide.md) and fill [the template](assets/template.txt).\n\n%s\n",
				name, i, name, text(rng, part(2))),
			"scripts/run.sh":      "#!/bin/sh\n# " + text(rng, part(1)) + "\necho ok\n",
			"references/guide.md": "# Guide\n\n" + text(rng, part(30)),
			"assets/template.txt": text(rng, part(37)),
		}
		for rel, content := range files {
			p := filepath.Join(dir, name, filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			mode := os.FileMode(0o644)
			if strings.HasSuffix(rel, ".sh") {
				mode = 0o755
			}
			if err := os.WriteFile(p, []byte(content), mode); err != nil {
				return err
			}
		}
	}
	return nil
}
