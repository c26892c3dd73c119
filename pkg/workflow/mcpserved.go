package workflow

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"sync"

	"github.com/stax-dev/stax/pkg/agent"
	"github.com/stax-dev/stax/pkg/discover"
	"github.com/stax-dev/stax/pkg/install"
)

// servedWorkers work on the skills of a package as they are extracted:
// extraction, creating files one after another, leaves most of a core
// idle, and one worker keeps up with it.
const servedWorkers = 1

// servedWork is what stax mcp --package does with each skill as it is
// extracted, beside the extraction rather than after it: the skill's
// part of the record is encoded, and its SKILL.md parsed as the server
// lists it.
type servedWork struct {
	rt     agent.Runtime
	folder agent.Location
	parse  bool
	todo   chan servedSkill
	wg     sync.WaitGroup

	mu     sync.Mutex // guards the fields below
	parts  map[string]json.RawMessage
	parsed map[string]discover.Skill // by path, with parse
	err    error
}

type servedSkill struct {
	path string
	in   *install.InstalledSkill
}

func newServedWork(rt agent.Runtime, folder agent.Location, parse bool) *servedWork {
	w := &servedWork{rt: rt, folder: folder, parse: parse, todo: make(chan servedSkill, 64), parts: map[string]json.RawMessage{}}
	if parse {
		w.parsed = map[string]discover.Skill{}
	}
	w.wg.Add(servedWorkers)
	for range servedWorkers {
		go func() {
			defer w.wg.Done()
			for s := range w.todo {
				w.do(s.path, s.in)
			}
		}()
	}
	return w
}

// add hands skill path, as written, to the workers (see
// install.WriteFolderFiles).
func (w *servedWork) add(path string, in *install.InstalledSkill) error {
	w.todo <- servedSkill{path, in}
	return nil
}

func (w *servedWork) do(path string, in *install.InstalledSkill) {
	part, err := json.Marshal(in)
	var s discover.Skill
	if w.parse && in.SkillFile != nil {
		s = discover.Parse(w.rt, w.folder, path, in.SkillFile)
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
	if s.Key != "" {
		w.parsed[path] = s
	}
}

// wait waits for the skills handed on and returns the record of them,
// the bytes json.Marshal makes of the map of every skill by path.
func (w *servedWork) wait() ([]byte, error) {
	close(w.todo)
	w.wg.Wait()
	if w.err != nil {
		return nil, w.err
	}
	// The map's keys sorted, as json.Marshal writes them; a part is not
	// compacted again, as json.Marshal would a json.RawMessage.
	var b bytes.Buffer
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
