package mcpserver

import (
	"maps"
	"slices"

	"github.com/stax-dev/stax/pkg/discover"
)

// Written is a skill this process has just written, listed and indexed
// as it was written (see IndexWritten), so that the Refresh that first
// lists it only assembles what was made of it beside the writing: stax
// mcp --package indexes each skill of a package as it is extracted.
type Written struct {
	skill discover.Skill
	rec   *Installed
	// files are its files as rec says they were written; nil when rec
	// cannot stand for a walk (see listWritten), and the skill is then
	// listed and indexed at Refresh.
	files map[string]skillFile
	// indexed says that entry and warnings are what indexVisible makes
	// of the skill; entry is nil when it is not served.
	indexed  bool
	entry    *indexedSkill
	warnings []string
}

// IndexWritten lists and indexes skill sk, parsed from the SKILL.md this
// process wrote (see discover.Parse), whose files rec records as written
// (Installed.Written), and which are in dir now (a staging directory its
// folder is renamed from; sk.Dir once it is): what the first Refresh
// would make of it, made earlier. A skill whose package must verify is
// read again from its folder at Refresh (see Installed.Written): rec
// with Require set gives a Written that stands for nothing but sk.
func IndexWritten(sk discover.Skill, dir string, rec *Installed) *Written {
	w := &Written{skill: sk, rec: rec}
	if sk.Problem != "" || !rec.Written || rec.Require {
		return w
	}
	files := map[string]skillFile{}
	if !listWritten(sk, dir, rec, files) {
		return w
	}
	w.files = files
	fm, err := sk.Fields()
	if err != nil || fm == nil {
		return w // warned of at Refresh
	}
	w.entry, w.warnings = indexSkill(sk, fm, slices.Collect(maps.Values(files)), rec, nil)
	w.indexed = true
	// Indexed, it is not parsed again (see stands): its parse, a few
	// kilobytes a skill, need not be held as the others are written.
	w.skill = sk.Unparsed()
	return w
}

// stands reports whether w is what listFiles and buildIndex would make
// of skill sk of the listing, recorded as rec: the skill as written, not
// indexed before from its folder.
func (w *Written) stands(sk discover.Skill, rec *Installed, prev *skillIndex) bool {
	if w == nil || w.files == nil || w.rec != rec || w.skill.Dir != sk.Dir {
		return false
	}
	return prev.of(sk.Key, sk.Dir) == nil
}
