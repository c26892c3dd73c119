// Package scaffold writes new skills that validate as they are: a SKILL.md
// whose frontmatter carries the name, a description placeholder phrased as
// a trigger, and a version, and, for a stateful skill, the MEMORY.md,
// EXAMPLES.md and CALIBRATION.md siblings with the sections runtimes read.
package scaffold

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/skill"
	"github.com/stax-dev/stax/pkg/stateful"
)

// Version is the version a new skill starts at.
const Version = "0.1.0"

// Options describe the skill to create.
type Options struct {
	// SkillsDir is the skills directory the skill's folder goes in.
	SkillsDir string
	// Name is the skill's name and folder.
	Name string
	// Stateful adds MEMORY.md, EXAMPLES.md and CALIBRATION.md.
	Stateful bool
	// Today dates MEMORY.md; zero means now.
	Today time.Time
}

// Result is the skill created.
type Result struct {
	Dir string `json:"dir"`
	// Files are the files written, relative to Dir, in writing order.
	Files []string `json:"files"`
}

// ErrExists is returned for a skill folder that is already there: it is
// never overwritten.
var ErrExists = errors.New("skill folder exists")

// ErrInvalidName is returned for a name that is not a skill name.
var ErrInvalidName = errors.New("invalid skill name")

// Skill creates the skill's folder with all its files, or nothing: the
// files are written into a staging folder inside the skills directory,
// then the folder is moved into place.
func Skill(opts Options) (*Result, error) {
	if err := skill.ValidName(opts.Name); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidName, err)
	}
	if err := os.MkdirAll(opts.SkillsDir, 0o755); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(opts.SkillsDir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	if _, err := root.Lstat(opts.Name); err == nil {
		return nil, fmt.Errorf("%w: %s/%s; pick another name, or edit that skill", ErrExists, opts.SkillsDir, opts.Name)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}

	today := opts.Today
	if today.IsZero() {
		today = time.Now()
	}
	files := []struct{ name, text string }{{skill.FileName, skillMD(opts.Name, opts.Stateful)}}
	if opts.Stateful {
		files = append(files,
			struct{ name, text string }{stateful.CalibrationFile, calibration},
			struct{ name, text string }{stateful.ExamplesFile, examples},
			struct{ name, text string }{stateful.MemoryFile, memory(today.UTC().Format(time.DateOnly))})
	}

	staging := layers.StagingName("new")
	if err := root.Mkdir(staging, 0o700); err != nil {
		return nil, err
	}
	defer root.RemoveAll(staging)
	staged := staging + "/" + opts.Name
	if err := root.Mkdir(staged, 0o755); err != nil {
		return nil, err
	}
	res := &Result{Dir: opts.SkillsDir + string(os.PathSeparator) + opts.Name}
	for _, f := range files {
		if err := root.WriteFile(staged+"/"+f.name, []byte(f.text), 0o644); err != nil {
			return nil, err
		}
		res.Files = append(res.Files, f.name)
	}
	// Rename does not replace a directory that appeared meanwhile unless
	// it is empty; Lstat again to never take over someone's folder.
	if _, err := root.Lstat(opts.Name); err == nil {
		return nil, fmt.Errorf("%w: %s/%s", ErrExists, opts.SkillsDir, opts.Name)
	}
	if err := root.Rename(staged, opts.Name); err != nil {
		return nil, err
	}
	return res, nil
}

// title turns a skill name into a heading: "fix-issue" → "Fix issue".
func title(name string) string {
	s := strings.ReplaceAll(name, "-", " ")
	return strings.ToUpper(s[:1]) + s[1:]
}

func skillMD(name string, stateful bool) string {
	extra := ""
	if stateful {
		extra = "\nCALIBRATION.md, EXAMPLES.md and MEMORY.md load after these instructions, in\n" +
			"that order: keep domain terms in CALIBRATION.md, anchoring input/output pairs\n" +
			"in EXAMPLES.md, and dated, signed lessons from real runs in MEMORY.md.\n"
	}
	return `---
name: ` + name + `
description: >-
  TODO: say what this skill does, then when to use it. Use when the user asks
  to … (name the task, the files or tools involved, and the words users type).
  Do not use it for … (the neighbouring tasks it must not trigger on).
version: ` + Version + `
---
# ` + title(name) + `

## When to use

- TODO: the situations this skill is for, wider than the description.

## Workflow

1. TODO: the one default path, step by step.
` + extra + `
## Gotchas

- TODO: the near-misses and recoveries real runs show.
`
}

const calibration = `## Terminology

- TODO: preferred terms, and the ones to avoid.

## Output format

- TODO: the conventions output follows in this domain.

## Avoid

- TODO: anti-patterns specific to this domain.
`

const examples = `## Example: TODO a canonical case

### Input

TODO: what the user gives.

### Output

TODO: what the skill produces.

### Why this example

TODO: what it anchors.
`

func memory(date string) string {
	return `---
version: ` + Version + `
contributors: 0
lastUpdated: ` + date + `
---

## What worked

## What didn't

## Edge cases

## Open questions
`
}
