package validate

import (
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/skill"
	"github.com/stax-dev/stax/pkg/stateful"
	"github.com/stax-dev/stax/pkg/tokens"
)

// The skill-writing lints follow the Agent Skills guidance on progressive
// disclosure (docs/authoring.md, "Warnings"): a runtime puts only the
// description in the prompt, loads the body when the skill activates, and
// reads the other files only when the body sends it there. They are warnings: the skill
// works, but an agent will use it worse than its author expects.

// lints runs the skill-writing lints on a skill whose SKILL.md parsed.
func (v *validator) lints(d *skillDir, doc *skill.Document, text string) {
	rel := d.skillMD.Path
	v.trigger(rel, doc.Frontmatter)
	if n := tokens.Estimate(int64(len(doc.Body))); n > MaxBodyTokens {
		v.warnf(rel, doc.BodyLine, CodeBodyTooManyTokens,
			"body is about %d tokens (estimated as bytes/4); a runtime loads all of it when the skill activates: "+
				"keep it under %d and move details to references/ files the body cites", n, MaxBodyTokens)
	}
	v.citations(d, text)
}

// triggerPattern finds a "when" trigger: the word when or whenever
// anywhere ("Use when…", "Use this skill when…", "…when the user asks"),
// or "use" followed by a condition ("Use before a release").
var triggerPattern = regexp.MustCompile(
	`(?i)\bwhen(ever)?\b|\buse\b(\s+(it|this|this\s+skill))?\s+(before|after|during|if|once|while)\b`)

// trigger warns about a description that does not say when to use the
// skill: the description is all a runtime sees when it picks a skill.
// Claude Code's when_to_use field says it separately, so it counts.
func (v *validator) trigger(rel string, f *skill.Frontmatter) {
	desc := strings.TrimSpace(f.Description)
	if desc == "" || utf8.RuneCountInString(f.Description) > skill.MaxDescriptionLength || f.Has("when_to_use") {
		return // missing, too long or of the wrong type: reported already
	}
	if triggerPattern.MatchString(desc) {
		return
	}
	v.warnf(rel, f.Line("description"), CodeDescriptionNoTrigger,
		"description does not say when to use the skill, and a runtime picks skills by their description alone; "+
			"add a trigger, e.g. \"… Use when the user asks to …\"")
}

// citedDirs are the folders of the Agent Skills layout whose files exist
// only to be used from SKILL.md.
var citedDirs = []string{"scripts", "references", "assets"}

// citations reports files SKILL.md never cites (dead weight every install
// downloads), and reference chains deeper than one level: a cited
// Markdown file that cites another file of the skill SKILL.md does not.
// Agents follow references from SKILL.md, and often do not follow a
// reference's own references.
//
// text is the whole SKILL.md: frontmatter cites files too, e.g. a Claude
// Code hook's command.
func (v *validator) citations(d *skillDir, text string) {
	prefix := d.name + "/"
	var files []layers.Entry
	for _, e := range d.entries {
		if !e.Dir {
			files = append(files, e)
		}
	}
	rel := func(e layers.Entry) string { return strings.TrimPrefix(e.Path, prefix) }

	cited := map[string]bool{}
	for _, e := range files {
		if cites(text, rel(e), "") {
			cited[rel(e)] = true
		}
	}

	// One level down: what the cited Markdown files cite.
	chained := map[string]bool{}
	for _, e := range files {
		r := rel(e)
		if !cited[r] || !isMarkdown(r) || v.unreadable[e.Path] {
			continue
		}
		data, err := readFileInto(v.text[:0], e.Source, e.Size, maxSkillMDSize)
		if err != nil {
			continue // reported by the encoding check
		}
		v.text = data
		// content aliases the buffer, which only the next read changes:
		// a copy of every cited file was most of what validation allocated.
		content := unsafe.String(unsafe.SliceData(data), len(data))
		for _, t := range files {
			tr := rel(t)
			if tr == r || tr == skill.FileName || stateful.IsSibling(tr) || cited[tr] {
				continue
			}
			line := citationLine(content, tr, path.Dir(r))
			if line == 0 {
				continue
			}
			chained[tr] = true
			v.warnf(e.Path, line, CodeReferenceChain,
				"%s cites %s, which %s does not: agents follow references one level deep from %s; "+
					"cite %s from %s, or fold it into %s", r, tr, skill.FileName, skill.FileName, tr, skill.FileName, r)
		}
	}

	for _, e := range files {
		r := rel(e)
		top, _, nested := strings.Cut(r, "/")
		if !nested || !slices.Contains(citedDirs, top) || cited[r] || chained[r] || citesAncestor(text, r) {
			continue
		}
		v.warnf(e.Path, 0, CodeFileNotCited,
			"%s never cites %s, so agents will not know to use it and every install downloads it for nothing; "+
				"cite it by its relative path (e.g. [%s](%s)), or remove it", skill.FileName, r, path.Base(r), r)
	}
}

func isMarkdown(p string) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".md", ".markdown":
		return true
	}
	return false
}

// citesAncestor reports whether text cites a folder holding p below its
// top-level folder ("references/forms/" for references/forms/a.md): the
// body then sends the agent to the whole folder. Naming the top-level
// folder alone ("references/") does not count.
func citesAncestor(text, p string) bool {
	for dir := path.Dir(p); strings.Contains(dir, "/"); dir = path.Dir(dir) {
		if cites(text, dir, "/") {
			return true
		}
	}
	return false
}

// citationLine is the 1-based line of content that first cites target
// (relative to the skill root) from a file in folder dir (also relative
// to the skill root), or 0. A Markdown link resolves against the file's
// own folder, so both forms count.
func citationLine(content, target, dir string) int {
	forms := []string{target}
	if dir != "." {
		if r, ok := strings.CutPrefix(target, dir+"/"); ok {
			forms = append(forms, r)
		}
	}
	for n, rest := 1, content; ; n++ {
		line, after, more := strings.Cut(rest, "\n")
		for _, f := range forms {
			if cites(line, f, "") {
				return n
			}
		}
		if !more {
			return 0
		}
		rest = after
	}
}

// cites reports whether text names the relative path p as a path of its
// own: not as the tail of a longer name ("xscripts/a.sh") nor the head of
// one ("scripts/a.sh.bak"). A "/" before it is allowed, for "./p" and
// "${STAX_SKILL_DIR}/p". extraAfter lists characters that may follow it
// besides the usual punctuation. The percent-encoded form of p, which
// Markdown links to names with spaces use, counts too.
func cites(text, p, extraAfter string) bool {
	forms := []string{p}
	if escaped := escapePath(p); escaped != p {
		forms = append(forms, escaped)
	}
	for _, f := range forms {
		for from := 0; ; {
			i := strings.Index(text[from:], f)
			if i < 0 {
				break
			}
			start, end := from+i, from+i+len(f)
			if (start == 0 || !pathByte(text[start-1])) && endsPath(text, end, extraAfter) {
				return true
			}
			from = start + 1
		}
	}
	return false
}

// pathByte is a byte that continues a file name.
func pathByte(c byte) bool {
	return c == '_' || c == '-' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// endsPath reports whether a path may end at text[end]: the end of the
// text, or a byte that cannot continue it. A "." ends it only when no name
// character follows (the end of a sentence, not an extension).
func endsPath(text string, end int, extra string) bool {
	if end == len(text) {
		return true
	}
	c := text[end]
	switch {
	case strings.IndexByte(extra, c) >= 0:
		return true
	case c == '.':
		return end+1 == len(text) || !pathByte(text[end+1]) || text[end+1] == '.'
	case c == '/':
		return false
	}
	return !pathByte(c)
}

func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}
