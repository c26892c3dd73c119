package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/stax-dev/stax/internal/regularfile"
	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/discover"
	"github.com/stax-dev/stax/pkg/hiddentext"
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
	segs := strings.Split(rel, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return uriScheme + "://" + url.PathEscape(key) + "/" + strings.Join(segs, "/")
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
// every file, does not serve it.
func listFiles(l *discover.Listing) (files map[string]skillFile, truncated map[string]bool, warnings []string) {
	files, truncated = map[string]skillFile{}, map[string]bool{}
	for _, sk := range l.Skills {
		if !sk.Visible() {
			continue
		}
		root, err := os.OpenRoot(sk.Dir)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("cannot list the files of skill %s: %v", sk.Key, err))
			continue
		}
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
				return nil
			}
			if n++; n > maxFilesPerSkill {
				warnings = append(warnings, fmt.Sprintf("skill %s has more than %d files: only the first are resources, and %s does not list it", sk.Key, maxFilesPerSkill, MethodSkillsList))
				truncated[sk.Key] = true
				return fs.SkipAll
			}
			uri := URI(sk.Key, rel)
			files[uri] = skillFile{
				key:     sk.Key,
				dir:     sk.Dir,
				rel:     rel,
				modTime: info.ModTime().UnixNano(),
				resource: &mcp.Resource{
					URI:         uri,
					Name:        sk.Key + "/" + rel,
					Description: fmt.Sprintf("%s of skill %s", rel, sk.Name),
					MIMEType:    mimeType(root, rel),
					Size:        info.Size(),
				},
			}
			return nil
		})
		root.Close()
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("cannot list the files of skill %s: %v", sk.Key, err))
		}
		if unsafe > 0 {
			// Without the names: the warning reaches the model too.
			warnings = append(warnings, fmt.Sprintf("skill %s has %d files or folders whose names stax refuses (hidden characters, or past its limits); they are not served: run stax validate %s to see which, and rename them",
				sk.Key, unsafe, filepath.Dir(sk.Dir)))
		}
	}
	return files, truncated, warnings
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
	ext := strings.ToLower(path.Ext(rel))
	if t, ok := knownTypes[ext]; ok {
		return t
	}
	if t := mime.TypeByExtension(ext); t != "" {
		return t
	}
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
	data, info, err := readSkillFile(f)
	if err != nil {
		return nil, err
	}
	if len(data) > maxResource {
		return nil, invalidParams("%s is larger than %d MiB; read it from %s instead", uri, maxResource>>20, f.dir)
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

// readSkillFile reads file f, a byte more than maxResource at most,
// through os.Root so that a link swapped in after listing cannot lead
// outside the skill, and as a regular file: a named pipe put in its place
// would block the read, and the server with it. A file that cannot be
// opened so is not served (invalid params); one gone is not found.
func readSkillFile(f skillFile) ([]byte, fs.FileInfo, error) {
	uri := f.resource.URI
	root, err := os.OpenRoot(f.dir)
	if err != nil {
		return nil, nil, openError(uri, err)
	}
	defer root.Close()
	file, err := regularfile.OpenIn(root, f.rel)
	if err != nil {
		return nil, nil, openError(uri, err)
	}
	defer file.Close()
	data, err := io.ReadAll(io.LimitReader(file, maxResource+1))
	var info fs.FileInfo
	if err == nil {
		info, err = file.Stat()
	}
	if err != nil {
		return nil, nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("reading %s: %v", uri, err)}
	}
	return data, info, nil
}

func openError(uri string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return mcp.ResourceNotFoundError(uri) // removed since it was listed
	}
	return invalidParams("%s is not served: %v", uri, err)
}
