package workflow

import (
	"bytes"
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"
	"sync"

	"github.com/stax-dev/stax/pkg/agent"
	"github.com/stax-dev/stax/pkg/discover"
	"github.com/stax-dev/stax/pkg/install"
	"github.com/stax-dev/stax/pkg/mcpserver"
)

// servedWorkers work on the skills of a package as they are extracted:
// extraction, creating files one after another, leaves most of a core
// idle, and one worker keeps up with it.
const servedWorkers = 1

// servedBatch is how many skills are handed to a worker at once: one at
// a time, a worker idle between skills is woken a thousand times a
// package, each a few system calls.
const servedBatch = 32

// servedWork is what stax mcp --package does with each skill as it is
// extracted, beside the extraction rather than after it: the skill's
// part of the record is encoded and, with index, its SKILL.md parsed and
// the skill listed and indexed as the server's first Refresh would (see
// mcpserver.IndexWritten).
type servedWork struct {
	rt     agent.Runtime
	folder agent.Location
	// staging is the directory the skills are written in, renamed to
	// folder once all are.
	staging string
	// index, when set, is what the server is to know of a skill written.
	index func(*install.InstalledSkill) *mcpserver.Installed
	todo  chan []servedSkill
	wg    sync.WaitGroup

	adding  sync.Mutex    // layers are extracted at once
	pending []servedSkill // not handed on yet

	mu      sync.Mutex // guards the fields below
	parts   map[string]json.RawMessage
	indexed map[string]indexedSkill // by path, with index
	err     error
}

// indexedSkill is a skill written and indexed, and the record the server
// holds its files to.
type indexedSkill struct {
	rec     *mcpserver.Installed
	written *mcpserver.Written
}

type servedSkill struct {
	path string
	in   *install.InstalledSkill
}

func newServedWork(rt agent.Runtime, folder agent.Location, staging string, index func(*install.InstalledSkill) *mcpserver.Installed) *servedWork {
	w := &servedWork{rt: rt, folder: folder, staging: staging, index: index, todo: make(chan []servedSkill, 2),
		parts: map[string]json.RawMessage{}, indexed: map[string]indexedSkill{}}
	w.wg.Add(servedWorkers)
	for range servedWorkers {
		go func() {
			defer w.wg.Done()
			for batch := range w.todo {
				for _, s := range batch {
					w.do(s.path, s.in)
				}
			}
		}()
	}
	return w
}

// add hands skill path, as written, to the workers, servedBatch skills
// at a time (see install.WriteFolderFiles).
func (w *servedWork) add(path string, in *install.InstalledSkill) error {
	w.adding.Lock()
	defer w.adding.Unlock()
	w.pending = append(w.pending, servedSkill{path, in})
	if len(w.pending) == servedBatch {
		w.todo <- w.pending
		w.pending = make([]servedSkill, 0, servedBatch)
	}
	return nil
}

func (w *servedWork) do(path string, in *install.InstalledSkill) {
	part, err := json.Marshal(in)
	var x indexedSkill
	if w.index != nil && in.SkillFile != nil {
		x.rec = w.index(in)
		x.written = mcpserver.IndexWritten(discover.Parse(w.rt, w.folder, path, in.SkillFile), filepath.Join(w.staging, path), x.rec)
	}
	// Parsed, its SKILL.md is held as the skill: not twice.
	in.SkillFile = nil
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil {
		w.err = err
		return
	}
	w.parts[path] = part
	if x.written != nil {
		w.indexed[path] = x
	}
}

// wait waits for the skills handed on and returns the record of them,
// the bytes json.Marshal makes of the map of every skill by path.
func (w *servedWork) wait() ([]byte, error) {
	w.adding.Lock()
	last := w.pending
	w.pending = nil
	w.adding.Unlock()
	close(w.todo)
	// The extraction has ended, and left its core: the skills not handed
	// on yet, and those still queued, are worked on here too.
	for _, s := range last {
		w.do(s.path, s.in)
	}
	for batch := range w.todo {
		for _, s := range batch {
			w.do(s.path, s.in)
		}
	}
	w.wg.Wait()
	if w.err != nil {
		return nil, w.err
	}
	// The map's keys sorted, as json.Marshal writes them; a part is not
	// compacted again, as json.Marshal would a json.RawMessage.
	n := 2
	for path, part := range w.parts {
		n += len(path) + len(part) + 4 // quoted, a colon and a comma; more for a path escaped
	}
	b := bytes.NewBuffer(make([]byte, 0, n))
	b.WriteByte('{')
	for i, path := range slices.Sorted(maps.Keys(w.parts)) {
		if i > 0 {
			b.WriteByte(',')
		}
		key, err := json.Marshal(path)
		if err != nil {
			return nil, err
		}
		b.Write(key)
		b.WriteByte(':')
		b.Write(w.parts[path])
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
