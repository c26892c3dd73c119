package proposal

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	gitdiff "github.com/go-git/go-git/v5/utils/diff"
	"github.com/sergi/go-diff/diffmatchpatch"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/bump"
	"github.com/stax-dev/stax/pkg/skill"
	"github.com/stax-dev/stax/pkg/validate"
)

// MaxFileSize bounds each file of an existing skill read to stage the
// skill as it would be written.
const MaxFileSize = 16 << 20

// Options say where and how to apply a proposal.
type Options struct {
	// SkillsDir is the skills directory the proposal's paths start from.
	SkillsDir string
	// Part overrides the version bump the change implies; the zero value
	// keeps it: patch when SKILL.md is unchanged (only other files
	// change), minor for revise and narrow, major for replace.
	Part bump.Part
	// DryRun checks and reports without writing.
	DryRun bool
	// Today dates MEMORY.md when the bump rewrites it; zero means now.
	Today time.Time
	// Check, when set, is given the proposal's bytes as ApplyFile read
	// them, before anything else: its error (such as a signature that does
	// not verify) stops the apply, returned as it is, with nothing
	// written.
	Check func(proposal []byte) error
}

// Result is what applying a proposal did, or would do.
type Result struct {
	Summary   string    `json:"summary"`
	Operation Operation `json:"operation"`
	DryRun    bool      `json:"dryRun"`
	// NoOp is set when the proposal changes nothing: nothing is written.
	NoOp bool `json:"noOp"`
	// Rules are the rules checked, in order, and their outcome.
	Rules    []RuleResult  `json:"rules"`
	Skills   []SkillChange `json:"skills"`
	Warnings []string      `json:"warnings"`
}

// SkillChange is the change to one skill.
type SkillChange struct {
	Slug    string `json:"slug"`
	Created bool   `json:"created"`
	// Part is the version bump; empty when none was made.
	Part  bump.Part    `json:"part,omitempty"`
	From  string       `json:"from,omitempty"`
	To    string       `json:"to,omitempty"`
	Files []FileChange `json:"files"`
}

// FileChange is one file written.
type FileChange struct {
	// Path is relative to the skills directory, slash-separated.
	Path string `json:"path"`
	// Status is "added" or "modified".
	Status  string `json:"status"`
	Added   int    `json:"linesAdded"`
	Removed int    `json:"linesRemoved"`
}

// target is one skill a proposal touches.
type target struct {
	slug    string
	upserts map[string]string // path inside the skill → content
	exists  bool
	// current are the skill's regular files, by path inside it.
	current map[string]file
	// links are the paths inside the skill that are not regular files or
	// directories: nothing is written through or over them.
	links map[string]bool
	dirs  map[string]bool
}

type file struct {
	data []byte
	mode fs.FileMode
}

// Apply checks p against every rule and, if it passes and changes
// something, writes it into opts.SkillsDir with the skill's version bumped.
// A proposal that breaks a rule returns the result (each rule's outcome)
// and a *RejectedError; nothing is written then.
func Apply(p *Proposal, opts Options) (*Result, error) {
	res := &Result{Summary: p.Summary, Operation: p.Operation, DryRun: opts.DryRun,
		Rules: []RuleResult{{Rule: RuleFormat, Passed: true}}, Skills: []SkillChange{}, Warnings: []string{}}
	root, err := os.OpenRoot(opts.SkillsDir)
	if err != nil {
		return nil, fmt.Errorf("open the skills directory: %w", err)
	}
	defer root.Close()

	a := &applier{res: res, opts: opts, root: root, problems: map[string][]string{}}
	targets := a.group(p)
	if a.fails(RuleSafePaths) {
		return res, a.rejected()
	}
	for _, t := range targets {
		if err := a.read(t); err != nil {
			return nil, err
		}
	}
	a.checkPaths(targets)
	if a.fails(RuleSafePaths) {
		return res, a.rejected()
	}
	for _, t := range targets {
		switch {
		case p.Operation == Create && t.exists:
			a.problem(RuleOperation, "%s exists: create makes a new skill; revise, narrow or replace it instead", t.slug)
		case p.Operation != Create && !t.exists:
			a.problem(RuleOperation, "%s does not exist: %s changes an existing skill; use create for a new one", t.slug, p.Operation)
		}
	}
	if a.fails(RuleOperation) {
		return res, a.rejected()
	}
	if !slices.ContainsFunc(targets, (*target).changes) {
		// Nothing changes, so nothing is checked further: the skill as it
		// is stays, whatever its state.
		res.NoOp = true
		return res, nil
	}

	for _, t := range targets {
		a.checkContent(p.Operation, t)
	}
	a.pass(RuleNameIsSlug, RuleNameUnchanged, RuleDescriptionLength, RuleTier3Cited)
	writes, err := a.stage(p.Operation, targets)
	if err != nil {
		return nil, err
	}
	a.pass(RuleValidation)
	for _, r := range res.Rules {
		if !r.Passed {
			return res, a.rejected()
		}
	}
	if opts.DryRun {
		return res, nil
	}
	if err := write(root, writes); err != nil {
		return nil, err
	}
	return res, nil
}

type applier struct {
	res      *Result
	opts     Options
	root     *os.Root
	problems map[string][]string
}

func (a *applier) problem(rule, format string, args ...any) {
	a.problems[rule] = append(a.problems[rule], fmt.Sprintf(format, args...))
}

// fails records rule's outcome and reports whether it failed.
func (a *applier) fails(rule string) bool {
	a.pass(rule)
	return len(a.problems[rule]) > 0
}

// pass records the outcome of rules checked so far.
func (a *applier) pass(rules ...string) {
	for _, rule := range rules {
		r := RuleResult{Rule: rule, Passed: len(a.problems[rule]) == 0, Problems: a.problems[rule]}
		if i := slices.IndexFunc(a.res.Rules, func(r RuleResult) bool { return r.Rule == rule }); i >= 0 {
			a.res.Rules[i] = r
		} else {
			a.res.Rules = append(a.res.Rules, r)
		}
	}
}

func (a *applier) rejected() error {
	e := &RejectedError{}
	for _, r := range a.res.Rules {
		if !r.Passed {
			e.Rules = append(e.Rules, r)
		}
	}
	return e
}

// group sorts the proposal's files by skill, refusing unsafe paths.
func (a *applier) group(p *Proposal) []*target {
	bySlug := map[string]*target{}
	var out []*target
	keys := make([]string, 0, len(p.Files))
	for k := range p.Files {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, key := range keys {
		slug, rel, err := splitPath(key)
		if err != nil {
			a.problem(RuleSafePaths, "%v", err)
			continue
		}
		t := bySlug[slug]
		if t == nil {
			t = &target{slug: slug, upserts: map[string]string{}}
			bySlug[slug] = t
			out = append(out, t)
		}
		t.upserts[rel] = p.Files[key]
	}
	for _, t := range out {
		for rel := range t.upserts {
			for parent := path.Dir(rel); parent != "."; parent = path.Dir(parent) {
				if _, ok := t.upserts[parent]; ok {
					a.problem(RuleSafePaths, "%s/%s is proposed both as a file and as a folder", t.slug, parent)
				}
			}
		}
	}
	return out
}

// splitPath is the one check a proposed path goes through: a clean
// relative path with no hidden element (layers.CheckVisiblePath) whose
// first element is a valid skill name. A proposal writes skill content
// only; what is hidden is version control, tool settings or stax's state.
func splitPath(key string) (slug, rel string, err error) {
	if err := layers.CheckPath(key); err != nil {
		return "", "", fmt.Errorf("path %v", err)
	}
	if err := layers.CheckVisiblePath(key); err != nil {
		return "", "", fmt.Errorf("path %v: a proposal writes no hidden files or folders, nor stax's own; leave it out", err)
	}
	slug, rel, ok := strings.Cut(key, "/")
	if !ok {
		return "", "", fmt.Errorf("path %q is not inside a skill folder: write <slug>/%s", key, key)
	}
	if err := layers.CheckName(slug); err != nil {
		return "", "", fmt.Errorf("path %q: %v", key, err)
	}
	if err := skill.ValidName(slug); err != nil {
		return "", "", fmt.Errorf("path %q: the skill folder is not a skill name: %v", key, err)
	}
	return slug, rel, nil
}

// read loads the current files of t's skill through the root.
func (a *applier) read(t *target) error {
	t.current, t.links, t.dirs = map[string]file{}, map[string]bool{}, map[string]bool{}
	info, err := a.root.Lstat(t.slug)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !info.IsDir() {
		t.links["."] = true
		return nil
	}
	t.exists = true
	return fs.WalkDir(a.root.FS(), t.slug, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p, t.slug), "/")
		switch {
		case d.IsDir():
			t.dirs[rel] = true
		case d.Type().IsRegular():
			info, err := d.Info()
			if err != nil {
				return err
			}
			if info.Size() > MaxFileSize {
				return fmt.Errorf("%s is larger than %d bytes", p, MaxFileSize)
			}
			data, err := a.root.ReadFile(p)
			if err != nil {
				return err
			}
			t.current[rel] = file{data: data, mode: info.Mode().Perm()}
		default:
			t.links[rel] = true
		}
		return nil
	})
}

// checkPaths refuses to write through or over what is not a regular file
// (a symlink could lead out of the skill's folder), or over a folder.
func (a *applier) checkPaths(targets []*target) {
	for _, t := range targets {
		if t.links["."] {
			a.problem(RuleSafePaths, "%s is not a folder: stax writes a skill only into its own folder", t.slug)
			continue
		}
		for rel := range t.upserts {
			if t.dirs[rel] {
				a.problem(RuleSafePaths, "%s/%s is a folder, not a file", t.slug, rel)
			}
			for p := rel; p != "."; p = path.Dir(p) {
				if t.links[p] {
					a.problem(RuleSafePaths, "%s/%s is a symlink or special file: stax does not write through it", t.slug, p)
				}
				if _, ok := t.current[p]; ok && p != rel {
					a.problem(RuleSafePaths, "%s/%s is a file, so %s/%s cannot be written", t.slug, p, t.slug, rel)
				}
			}
		}
	}
}

// changes reports whether any proposed file differs from the current one.
func (t *target) changes() bool {
	for rel, text := range t.upserts {
		if cur, ok := t.current[rel]; !ok || string(cur.data) != text {
			return true
		}
	}
	return false
}

// skillMD is the SKILL.md the skill would have.
func (t *target) skillMD() (string, bool) {
	if text, ok := t.upserts[skill.FileName]; ok {
		return text, true
	}
	cur, ok := t.current[skill.FileName]
	return string(cur.data), ok
}

// checkContent applies the rules on the proposed SKILL.md and resources.
func (a *applier) checkContent(op Operation, t *target) {
	text, ok := t.skillMD()
	if !ok {
		a.problem(RuleValidation, "%s has no %s: a proposal for a new skill must include <slug>/%s", t.slug, skill.FileName, skill.FileName)
		return
	}
	doc, err := skill.Parse([]byte(text))
	if err != nil {
		a.problem(RuleValidation, "%s/%s: %v", t.slug, skill.FileName, err)
		return
	}
	name := doc.Frontmatter.Name
	if name != t.slug {
		a.problem(RuleNameIsSlug, "%s/%s: name is %q; it must equal the skill's folder, %q", t.slug, skill.FileName, name, t.slug)
	}
	if cur, ok := t.current[skill.FileName]; ok && op != Replace {
		if was, err := skill.Parse(cur.data); err == nil && was.Frontmatter.Name != name {
			a.problem(RuleNameUnchanged, "%s/%s: name changes from %q to %q, which only replace may do", t.slug, skill.FileName, was.Frontmatter.Name, name)
		}
	}
	if n := utf8.RuneCountInString(doc.Frontmatter.Description); n > MaxDescription {
		a.problem(RuleDescriptionLength, "%s/%s: description is %d characters; at most %d", t.slug, skill.FileName, n, MaxDescription)
	}
	var rels []string
	for rel := range t.upserts {
		rels = append(rels, rel)
	}
	slices.Sort(rels)
	for _, rel := range rels {
		top, _, nested := strings.Cut(rel, "/")
		if nested && slices.Contains(tier3Dirs, top) && !strings.Contains(text, rel) {
			a.problem(RuleTier3Cited, "%s/%s is not cited from %s: say in SKILL.md when to read, run or copy %s, or leave it out", t.slug, rel, skill.FileName, rel)
		}
	}
}

// pending is a file to write, relative to the skills directory.
type pending struct {
	path    string
	data    []byte
	mode    fs.FileMode
	existed bool
}

// stage lays out every skill as it would be written in a temporary
// folder, bumps its version, validates it, and returns what differs from
// the current files.
func (a *applier) stage(op Operation, targets []*target) ([]pending, error) {
	tmp, err := os.MkdirTemp("", "stax-apply-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	staged, err := os.OpenRoot(tmp)
	if err != nil {
		return nil, err
	}
	defer staged.Close()

	for _, t := range targets {
		if err := layOut(staged, t); err != nil {
			return nil, err
		}
	}

	for _, t := range targets {
		change := SkillChange{Slug: t.slug, Created: !t.exists, Files: []FileChange{}}
		if err := a.bump(op, t, filepath.Join(tmp, t.slug), &change); err != nil {
			return nil, err
		}
		a.res.Skills = append(a.res.Skills, change)
	}

	report, err := validate.Dir(validate.Options{Root: tmp})
	if err != nil {
		return nil, err
	}
	for _, d := range report.Errors {
		a.problem(RuleValidation, "%s", a.located(tmp, d).Format("error"))
	}
	for _, d := range report.Warnings {
		a.res.Warnings = append(a.res.Warnings, a.located(tmp, d).Format("warning"))
	}

	var writes []pending
	for i, t := range targets {
		w, err := diffStaged(staged, t, &a.res.Skills[i])
		if err != nil {
			return nil, err
		}
		writes = append(writes, w...)
	}
	return writes, nil
}

// layOut writes t's files in staged, as the proposal makes them: the
// current ones with its upserts over them. A new file is executable when
// it starts with #!; a replaced one keeps its mode.
func layOut(staged *os.Root, t *target) error {
	files := map[string]file{}
	for rel, f := range t.current {
		files[rel] = f
	}
	for rel, text := range t.upserts {
		mode := fs.FileMode(0o644)
		if cur, ok := t.current[rel]; ok {
			mode = cur.mode
		} else if strings.HasPrefix(text, "#!") {
			mode = 0o755
		}
		files[rel] = file{data: []byte(text), mode: mode}
	}
	for rel, f := range files {
		p := t.slug + "/" + rel
		if err := staged.MkdirAll(path.Dir(p), 0o755); err != nil {
			return err
		}
		if err := staged.WriteFile(p, f.data, f.mode); err != nil {
			return err
		}
	}
	return nil
}

// diffStaged returns the writes of the files of t staged that differ from
// its current ones, and lists them in change.
func diffStaged(staged *os.Root, t *target, change *SkillChange) ([]pending, error) {
	var writes []pending
	err := fs.WalkDir(staged.FS(), t.slug, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel := strings.TrimPrefix(p, t.slug+"/")
		data, err := staged.ReadFile(p)
		if err != nil {
			return err
		}
		cur, existed := t.current[rel]
		if existed && bytes.Equal(cur.data, data) {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		fc := FileChange{Path: p, Status: "added"}
		if existed {
			fc.Status = "modified"
		}
		fc.Added, fc.Removed = lineChanges(string(cur.data), string(data))
		change.Files = append(change.Files, fc)
		writes = append(writes, pending{path: p, data: data, mode: info.Mode().Perm(), existed: existed})
		return nil
	})
	return writes, err
}

// located names a diagnostic's file where it will be, not where it was
// staged.
func (a *applier) located(tmp string, d validate.Diagnostic) validate.Diagnostic {
	if rel, err := filepath.Rel(tmp, d.File); err == nil {
		d.File = filepath.Join(a.opts.SkillsDir, rel)
	}
	return d
}

// bump raises the staged skill's version from the current one: a proposal
// states the content, stax decides the version.
func (a *applier) bump(op Operation, t *target, dir string, change *SkillChange) error {
	text, ok := t.skillMD()
	if !ok {
		return nil
	}
	if op == Create {
		if doc, err := skill.Parse([]byte(text)); err == nil {
			change.To = doc.Frontmatter.Version
		}
		return nil
	}
	part := a.opts.Part
	if part == "" {
		switch {
		case string(t.current[skill.FileName].data) == text:
			part = bump.Patch
		case op == Replace:
			part = bump.Major
		default:
			part = bump.Minor
		}
	}
	cur, err := skill.Parse(t.current[skill.FileName].data)
	if err != nil || cur.Frontmatter.Version == "" {
		a.res.Warnings = append(a.res.Warnings, fmt.Sprintf("%s has no version to bump: add one (version: 0.1.0) to track its changes", t.slug))
		return nil
	}
	staged := filepath.Join(dir, skill.FileName)
	data, err := os.ReadFile(staged)
	if err != nil {
		return err
	}
	doc, err := skill.Parse(data)
	if err != nil {
		return nil // the validation rule reports it
	}
	field := []string{"version"}
	if doc.Frontmatter.VersionField == "metadata.version" {
		field = []string{"metadata", "version"}
	}
	if doc.Frontmatter.VersionField == "" {
		a.problem(RuleValidation, "%s/%s: the proposal drops the version (%s): keep the version field", t.slug, skill.FileName, cur.Frontmatter.Version)
		return nil
	}
	if doc.Frontmatter.Version != cur.Frontmatter.Version {
		if data, _, err = bump.SetValue(data, doc.Frontmatter.Node(), field, cur.Frontmatter.Version); err != nil {
			a.problem(RuleValidation, "%s/%s: %v", t.slug, skill.FileName, err)
			return nil
		}
		if err := os.WriteFile(staged, data, 0o644); err != nil {
			return err
		}
	}
	res, err := bump.Skill(bump.Options{Dir: dir, Part: part, Today: a.opts.Today})
	if err != nil {
		a.problem(RuleValidation, "%s: %v", t.slug, err)
		return nil
	}
	change.Part, change.From, change.To = part, res.From, res.To
	return nil
}

// lineChanges counts the lines a change adds and removes. The diff maps
// each distinct line to a rune and panics past the last one, so a file of
// more than MaxLines lines (one already in the skill: a proposed one is
// refused) is counted as replaced whole.
func lineChanges(from, to string) (added, removed int) {
	if lineCount(from) > MaxLines || lineCount(to) > MaxLines {
		return lineCount(to), lineCount(from)
	}
	for _, d := range gitdiff.Do(from, to) {
		n := strings.Count(d.Text, "\n")
		if !strings.HasSuffix(d.Text, "\n") && d.Text != "" {
			n++
		}
		switch d.Type {
		case diffmatchpatch.DiffInsert:
			added += n
		case diffmatchpatch.DiffDelete:
			removed += n
		}
	}
	return added, removed
}

// write puts every file in place or none: each new file is written in a
// staging folder inside the skills directory, then moved over the old one,
// which is kept until all are in; a failure moves them back.
func write(root *os.Root, writes []pending) (err error) {
	staging := layers.StagingName("apply")
	if err := root.Mkdir(staging, 0o700); err != nil {
		return err
	}
	defer func() {
		if rerr := root.RemoveAll(staging); err == nil {
			err = rerr
		}
	}()
	for i, w := range writes {
		if err := writeFile(root, fmt.Sprintf("%s/new-%d", staging, i), w.data, w.mode); err != nil {
			return err
		}
	}

	var created []string // folders made, deepest last
	moved := 0
	defer func() {
		if err == nil {
			return
		}
		for i := moved - 1; i >= 0; i-- {
			w := writes[i]
			if w.existed {
				root.Rename(fmt.Sprintf("%s/old-%d", staging, i), w.path)
			} else {
				root.Remove(w.path)
			}
		}
		for i := len(created) - 1; i >= 0; i-- {
			root.Remove(created[i])
		}
	}()
	for i, w := range writes {
		var missing []string
		for dir := path.Dir(w.path); dir != "."; dir = path.Dir(dir) {
			if _, err := root.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
				missing = append(missing, dir)
			}
		}
		for j := len(missing) - 1; j >= 0; j-- {
			if err := root.Mkdir(missing[j], 0o755); err != nil {
				return err
			}
			created = append(created, missing[j])
		}
		if w.existed {
			if err := root.Rename(w.path, fmt.Sprintf("%s/old-%d", staging, i)); err != nil {
				return err
			}
		}
		if err := root.Rename(fmt.Sprintf("%s/new-%d", staging, i), w.path); err != nil {
			if w.existed {
				root.Rename(fmt.Sprintf("%s/old-%d", staging, i), w.path)
			}
			return err
		}
		moved++
	}
	return nil
}

func writeFile(root *os.Root, name string, data []byte, mode fs.FileMode) error {
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Chmod(name, mode)
	}
	return err
}
