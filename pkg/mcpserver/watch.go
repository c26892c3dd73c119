package mcpserver

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// settle is how long the folders must be quiet before a Refresh: an
// install or an editor's save is a burst of events.
const settle = 150 * time.Millisecond

// Watch calls Refresh once its watches are placed, and then whenever the
// runtime's skill folders change, until ctx ends. It watches every skill folder and the files of its skills, and,
// for a folder that does not exist yet, its nearest existing parent, so
// that a first install is seen too.
func (s *Server) Watch(ctx context.Context) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer w.Close()
	s.syncWatches(w)
	// What changed between the server's first reading and these watches
	// made no event: read the folders again now that changes are heard.
	if err := s.Refresh(); err != nil {
		s.opts.Logger.Warn("reading the skill folders: " + err.Error())
	}
	if s.onWatching != nil {
		s.onWatching()
	}
	var quiet <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			if s.relevant(ev.Name) {
				quiet = time.After(settle)
			}
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			s.opts.Logger.Warn("watching the skill folders: " + err.Error())
		case <-quiet:
			quiet = nil
			// Watch the folders as they are now before reading them, and
			// so before clients are told of the change: a client that
			// edits a skill it has just been told of must be heard.
			s.syncWatches(w)
			if err := s.Refresh(); err != nil {
				s.opts.Logger.Warn("reading the skill folders: " + err.Error())
			}
		}
	}
}

// watchRoots are the folders skills are found in or under: the runtime's
// project and user folders, and the fixed part of its plugin patterns.
func (s *Server) watchRoots() []string {
	rt := s.opts.Runtime
	roots := append(rt.ProjectDirs(s.opts.Project), rt.UserDirs(s.opts.Home)...)
	for _, p := range rt.PluginPatterns(s.opts.Home) {
		if i := strings.IndexAny(p, "*?["); i >= 0 {
			p = filepath.Dir(p[:i])
		}
		roots = append(roots, p)
	}
	return roots
}

// relevant says whether a change at name can change what is served: it
// is inside a skill folder, or on the way to one not created yet.
func (s *Server) relevant(name string) bool {
	for _, r := range s.watchRoots() {
		if within(name, r) || within(r, name) {
			return true
		}
	}
	return false
}

// within says whether path is dir or inside it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// syncWatches makes w watch what Watch describes, adding new folders and
// dropping gone ones: fsnotify watches one directory, not a tree.
func (s *Server) syncWatches(w *fsnotify.Watcher) {
	want := map[string]bool{}
	for _, r := range s.watchRoots() {
		dir := r
		for {
			if info, err := os.Stat(dir); err == nil && info.IsDir() {
				break
			}
			parent := filepath.Dir(dir)
			if parent == dir || !(within(parent, s.opts.Project) || within(parent, s.opts.Home)) {
				dir = ""
				break
			}
			dir = parent
		}
		if dir == "" {
			continue
		}
		if dir != r {
			want[dir] = true
			continue
		}
		_ = filepath.WalkDir(r, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if !d.IsDir() {
				return nil
			}
			if p != r && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			want[p] = true
			return nil
		})
	}
	for _, d := range w.WatchList() {
		if !want[d] {
			_ = w.Remove(d)
		}
	}
	for d := range want {
		if err := w.Add(d); err != nil {
			s.opts.Logger.Warn("watching " + d + ": " + err.Error())
		}
	}
}
