package install

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/pkg/agent"
)

func TestIgnoredFields(t *testing.T) {
	tree := t.TempDir()
	write := func(skill, frontmatter string) {
		os.MkdirAll(filepath.Join(tree, skill), 0o755)
		os.WriteFile(filepath.Join(tree, skill, "SKILL.md"), []byte("---\nname: "+skill+"\ndescription: D.\n"+frontmatter+"---\nBody.\n"), 0o644)
	}
	write("plain", "")
	write("tools", "allowed-tools: Bash\n")
	var all []agent.Runtime
	for _, n := range agent.Names() {
		rt, _ := agent.Find(n)
		all = append(all, rt)
	}
	got := IgnoredFields(tree, []string{"plain", "tools", "missing"}, all)
	for _, w := range got {
		if w.Kind != KindIgnoredFields || w.Skill != "tools" || !strings.HasPrefix(w.Message, "skill tools: ") || !strings.HasSuffix(w.Message, "does not honour allowed-tools") {
			t.Errorf("unexpected warning %q", w)
		}
	}
	if len(got) == 0 {
		t.Error("no runtime ignores allowed-tools: the table says some do")
	}
}
