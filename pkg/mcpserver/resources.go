package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/stax-dev/stax/internal/regularfile"
	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/discover"
	"github.com/stax-dev/stax/pkg/hiddentext"
	"github.com/stax-dev/stax/pkg/skill"
	"github.com/stax-dev/stax/pkg/stateful"
)

// uriScheme names skill files: skill://KEY/PATH, KEY the skill's directory
// name (what shadowing is keyed by) and PATH the file's path in it, each
// segment escaped. The URI stays the same across restarts and refreshes.
const uriScheme = "skill"

// maxResource bounds a resource read: skill files are text for a context
// window or small assets, and a read is held in memory to be sent.
const maxResource = 16 << 20

// maxFilesPerSkill bounds the resources listed for one skill, so that a
// skill folder holding a whole repository does not flood the client.
const maxFilesPerSkill = 1000

// skillFile is one file of a skill served as a resource.
type skillFile struct {
	resource *mcp.Resource
	key      string // the skill's key
	dir      string // the skill directory
	rel      string // slash-separated path in it
	modTime  int64  // Unix nanoseconds, when listed
}

// URI is the resource URI of file rel of the skill keyed key.
func URI(key, rel string) string {
	// Built in one buffer: it is made twice for each file at start.
	var b strings.Builder
	b.Grow(len(uriScheme) + len("://") + len(key) + 1 + len(rel))
	b.WriteString(uriScheme + "://")
	b.WriteString(url.PathEscape(key))
	for seg := range strings.SplitSeq(rel, "/") {
		b.WriteByte('/')
		b.WriteString(url.PathEscape(seg))
	}
	return b.String()
}

// listFiles lists the files of the skills the runtime loads, by URI, with
// warnings for what could not be listed. Hidden files and folders (".git",
// staging folders) are not skill content, and neither is a file or folder
// whose name stax would not install (layers.CheckPath): names are shown to
// the model, and one may hold text its reviewers cannot see. A symbolic
// link is listed only if it stays inside the skill directory: reads go
// through os.Root.
//
// A skill with more files than maxFilesPerSkill is truncated: its first
// files are resources, but the skills extension, whose manifest names
// every file, does not serve it (unserved). Nor does it serve one whose
// SKILL.md or stateful file is not a regular file inside its folder
// (a link out of it): the Skill tool, which serves what an entry names,
// loads it from the folder as the runtime does.
//
// A skill that this process has just written (Installed.Written), and
// that prev does not index yet, is listed from its record rather than
// read again (see listWritten), unless its package must verify.
// A skill listed as written, of written by directory, takes the files
// IndexWritten listed, and is in taken.
func listFiles(l *discover.Listing, installed map[string]*Installed, written map[string]*Written, prev *skillIndex) (files map[string]skillFile, unserved map[string]bool, taken map[string]*Written, warnings []string) {
	n := 0
	for _, w := range written {
		n += len(w.files)
	}
	// Sized for the files of the skills written, most often all of them:
	// growing it a file at a time was a quarter of a start's listing.
	files, unserved, taken = make(map[string]skillFile, n), map[string]bool{}, make(map[string]*Written, len(written))
	for _, sk := range l.Skills {
		if !sk.Visible() {
			continue
		}
		rec := installed[sk.Dir]
		if w := written[sk.Dir]; w.stands(sk, rec, prev) {
			maps.Copy(files, w.files)
			taken[sk.Dir] = w
			continue
		}
		// Under require, a file changed or added since the writing must
		// refuse the skill from the start, as it would one installed
		// earlier: only a walk finds it.
		if rec != nil && rec.Written && !rec.Require {
			if prev.of(sk.Key, sk.Dir) == nil && listWritten(sk, sk.Dir, rec, files) {
				continue
			}
		}
		warnings = append(warnings, walkSkill(sk, files, unserved)...)
	}
	return files, unserved, taken, warnings
}

// loaded reports whether the Skill tool loads file rel of a skill.
func loaded(rel string) bool {
	return rel == skill.FileName || stateful.IsSibling(rel)
}

// walkSkill lists the files of skill sk into files (see listFiles).
func walkSkill(sk discover.Skill, files map[string]skillFile, unserved map[string]bool) (warnings []string) {
	root, err := os.OpenRoot(sk.Dir)
	if err != nil {
		return []string{fmt.Sprintf("cannot list the files of skill %s: %v", sk.Key, err)}
	}
	defer root.Close()
	n, unsafe := 0, 0
	err = fs.WalkDir(root.FS(), ".", func(rel string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if rel != "." && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if rel != "." && layers.CheckPath(rel) != nil {
			unsafe++
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		info, err := root.Stat(rel) // follows a link, refusing one that leaves the skill
		if err != nil || !info.Mode().IsRegular() {
			if loaded(rel) && !errors.Is(err, fs.ErrNotExist) {
				warnings = append(warnings, fmt.Sprintf("skill %s is not served to %s: its %s is not a file inside its folder", sk.Key, MethodSkillsList, rel))
				unserved[sk.Key] = true
			}
			return nil
		}
		if n++; n > maxFilesPerSkill {
			warnings = append(warnings, fmt.Sprintf("skill %s has more than %d files: only the first are resources, and %s does not list it", sk.Key, maxFilesPerSkill, MethodSkillsList))
			unserved[sk.Key] = true
			return fs.SkipAll
		}
		addFile(files, sk, rel, info.Size(), info.ModTime().UnixNano(), mimeType(root, rel))
		return nil
	})
	if err != nil {
		warnings = append(warnings, fmt.Sprintf("cannot list the files of skill %s: %v", sk.Key, err))
	}
	if unsafe > 0 {
		// Without the names: the warning reaches the model too.
		warnings = append(warnings, fmt.Sprintf("skill %s has %d files or folders whose names stax refuses (hidden characters, or past its limits); they are not served: run stax validate %s to see which, and rename them",
			sk.Key, unsafe, filepath.Dir(sk.Dir)))
	}
	return warnings
}

// listWritten lists the files of skill sk as rec says they were written,
// with the stat each had once written, without reading the directory: the
// process that wrote it lists a package of a thousand skills in a
// fraction of the time. What changed since is found as a read holds the
// file's stat to the manifest (see checkServed), as for a file changed
// after a walk. It adds nothing and reports false when rec cannot stand
// for a walk: a file without its stat, one whose name walkSkill would
// count as refused, or more files than maxFilesPerSkill. The type of a
// file not known by its name is read from its bytes, in dir, where the
// skill's files are now.
func listWritten(sk discover.Skill, dir string, rec *Installed, files map[string]skillFile) bool {
	if len(rec.Files) > maxFilesPerSkill {
		return false
	}
	for rel, f := range rec.Files {
		if f.Size < 0 || !hidden(rel) && layers.CheckPath(rel) != nil {
			return false
		}
	}
	types := make(map[string]string, len(rec.Files))
	var root *os.Root // opened for a file whose type is in its bytes
	defer func() {
		if root != nil {
			root.Close()
		}
	}()
	for rel := range rec.Files {
		if hidden(rel) {
			continue
		}
		t, ok := typeByName(rel)
		if !ok {
			if root == nil {
				var err error
				if root, err = os.OpenRoot(dir); err != nil {
					return false
				}
			}
			t = sniffType(root, rel)
		}
		types[rel] = t
	}
	for rel, t := range types {
		f := rec.Files[rel]
		addFile(files, sk, rel, f.Size, f.ModTime, t)
	}
	return true
}

// addFile adds file rel of skill sk, of the size, modification time and
// type given, to files.
func addFile(files map[string]skillFile, sk discover.Skill, rel string, size, modTime int64, mimeType string) {
	uri := URI(sk.Key, rel)
	files[uri] = skillFile{
		key:     sk.Key,
		dir:     sk.Dir,
		rel:     rel,
		modTime: modTime,
		resource: &mcp.Resource{
			URI:         uri,
			Name:        sk.Key + "/" + rel,
			Description: rel + " of skill " + sk.Name,
			MIMEType:    mimeType,
			Size:        size,
		},
	}
}

// knownTypes are the MIME types of the files skills usually hold, fixed
// here rather than read from the machine's mime.types so that every
// machine serves the same type.
var knownTypes = map[string]string{
	".md":   "text/markdown",
	".txt":  "text/plain",
	".sh":   "text/x-shellscript",
	".bash": "text/x-shellscript",
	".py":   "text/x-python",
	".js":   "text/javascript",
	".mjs":  "text/javascript",
	".ts":   "text/x-typescript",
	".go":   "text/x-go",
	".rb":   "text/x-ruby",
	".json": "application/json",
	".yaml": "application/yaml",
	".yml":  "application/yaml",
	".toml": "application/toml",
	".xml":  "application/xml",
	".html": "text/html",
	".css":  "text/css",
	".csv":  "text/csv",
	".svg":  "image/svg+xml",
	".png":  "image/png",
	".jpg":  "image/jpeg",
	".jpeg": "image/jpeg",
	".gif":  "image/gif",
	".webp": "image/webp",
	".pdf":  "application/pdf",
	".zip":  "application/zip",
}

// mimeType is the type of file rel: by its extension, else by its first
// bytes.
func mimeType(root *os.Root, rel string) string {
	if t, ok := typeByName(rel); ok {
		return t
	}
	return sniffType(root, rel)
}

// typeByName is the type of file rel by its extension, if it has a known
// one.
func typeByName(rel string) (string, bool) {
	ext := strings.ToLower(path.Ext(rel))
	if t, ok := knownTypes[ext]; ok {
		return t, true
	}
	if t := mime.TypeByExtension(ext); t != "" {
		return t, true
	}
	return "", false
}

// sniffType is the type of file rel by its first bytes.
func sniffType(root *os.Root, rel string) string {
	f, err := regularfile.OpenIn(root, rel)
	if err != nil {
		return "application/octet-stream"
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	t := http.DetectContentType(head[:n])
	if strings.HasPrefix(t, "text/plain") {
		return "text/plain"
	}
	return t
}

// isText says whether a resource of MIME type t with content data is sent
// as text rather than as a base64 blob.
func isText(t string, data []byte) bool {
	textual := strings.HasPrefix(t, "text/") || strings.HasSuffix(t, "+xml") ||
		t == "application/json" || t == "application/yaml" || t == "application/toml" || t == "application/xml"
	return textual && utf8.Valid(data)
}

// readResource reads a skill file on demand (see readSkillFile). What it
// does not serve is invalid params, as the skills extension wants: a file
// gone, changed since the host's entry, or of a skill refused.
func (s *Server) readResource(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	s.mu.Lock()
	f, ok := s.resources[uri]
	s.mu.Unlock()
	if !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	data, info, err := readSkillFile(f, maxResource)
	var internal *jsonrpc.Error
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, s.checkRemoved(f, "was removed from disk")
	case notAFile(err):
		return nil, s.checkRemoved(f, fmt.Sprintf("is no longer a file on disk (%v)", err))
	case errors.Is(err, regularfile.ErrTooLarge):
		return nil, invalidParams("%s is larger than %d MiB; read it from %s instead", uri, maxResource>>20, f.dir)
	case errors.As(err, &internal):
		return nil, err
	case err != nil:
		return nil, invalidParams("%s is not served: %v", uri, err)
	}
	if err := s.checkServed(f, info, data); err != nil {
		return nil, err
	}
	// Never serve text an agent would read and its reviewers not see.
	if err := hiddentext.Check(filepath.Join(f.dir, filepath.FromSlash(f.rel)), "", data); err != nil {
		return nil, invalidParams("%v", err)
	}
	c := &mcp.ResourceContents{URI: uri, MIMEType: f.resource.MIMEType}
	if isText(c.MIMEType, data) {
		c.Text = string(data)
	} else {
		c.Blob = data
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{c}}, nil
}

// notAFile says whether err, from readSkillFile, found no regular file
// where the entry names one: a folder or a named pipe in its place, a
// socket (which open refuses with ENXIO), or a file in place of its
// folder. That is no file the entry names any more, as one removed is
// not.
func notAFile(err error) bool {
	return errors.Is(err, regularfile.ErrNotRegular) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.ENXIO)
}

// readSkillFile reads file f, refusing one over limit bytes
// (regularfile.ErrTooLarge), through os.Root so that a link swapped in
// after listing cannot lead outside the skill, and as a regular file: a
// named pipe put in its place would block the read, and the server with
// it. A file gone is fs.ErrNotExist; an error once it is open, a
// JSON-RPC internal error.
func readSkillFile(f skillFile, limit int64) ([]byte, fs.FileInfo, error) {
	root, err := os.OpenRoot(f.dir)
	if err != nil {
		return nil, nil, err
	}
	defer root.Close()
	file, err := regularfile.OpenIn(root, f.rel)
	if err != nil {
		return nil, nil, err
	}
	defer file.Close()
	data, err := regularfile.ReadAll(file, f.resource.URI, limit)
	if errors.Is(err, regularfile.ErrTooLarge) {
		return nil, nil, err
	}
	var info fs.FileInfo
	if err == nil {
		info, err = file.Stat()
	}
	if err != nil {
		return nil, nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("reading %s: %v", f.resource.URI, err)}
	}
	return data, info, nil
}
