package mcpserver

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/stax-dev/stax/pkg/skill"
)

// The skills extension of MCP (SEP-2640): hosts list skills with
// skills/list, confirm one with skills/get, read its files as resources
// and verify each against the entry's digest and size.
const (
	SkillsExtension     = "io.modelcontextprotocol/skills"
	MethodSkillsList    = "skills/list"
	MethodSkillsGet     = "skills/get"
	MethodDirectoryRead = "resources/directory/read"
	// DirectoryMIMEType marks a child of resources/directory/read that is
	// a directory.
	DirectoryMIMEType = "inode/directory"
)

// listPageSize is how many entries a skills/list page holds; an entry is
// never split across pages.
const listPageSize = 100

// listTTL is the ttlMs of a skills/list result: the server tells its
// clients when skills change (resources/list_changed), so a listing may
// be kept a while.
const listTTL = 60_000

// maxConcurrentLists bounds the skills/list pages built at once, and so
// the memory a flood of requests takes; the others wait their turn.
const maxConcurrentLists = 8

// SkillsListParams are the params of skills/list.
type SkillsListParams struct {
	mcp.ParamsBase
	Cursor string `json:"cursor,omitempty"`
}

// SkillsListResult is a page of skills/list.
type SkillsListResult struct {
	mcp.ResultBase
	ResultType string       `json:"resultType"`
	Skills     []SkillEntry `json:"skills"`
	NextCursor string       `json:"nextCursor,omitempty"`
	TTLMs      int          `json:"ttlMs"`
	CacheScope string       `json:"cacheScope"`
}

// SkillsGetParams are the params of skills/get: the URI of a SKILL.md.
type SkillsGetParams struct {
	mcp.ParamsBase
	URI string `json:"uri"`
}

// SkillsGetResult is the answer of skills/get.
type SkillsGetResult struct {
	mcp.ResultBase
	ResultType string     `json:"resultType"`
	Skill      SkillEntry `json:"skill"`
}

// SkillEntry is one skill: its SKILL.md, its frontmatter as written, and
// every file with its digest and size, which hosts verify what they read
// against.
type SkillEntry struct {
	URI         string          `json:"uri"`
	Frontmatter map[string]any  `json:"frontmatter"`
	Resources   []SkillResource `json:"resources"`
	Meta        mcp.Meta        `json:"_meta,omitempty"`

	// encoded, when set, is the entry's JSON, made when it was indexed.
	encoded json.RawMessage
}

// MarshalJSON encodes e, or sends the JSON it was indexed with.
func (e SkillEntry) MarshalJSON() ([]byte, error) {
	if e.encoded != nil {
		return e.encoded, nil
	}
	type plain SkillEntry // without this method
	return json.Marshal(plain(e))
}

// SkillResource is one file of a SkillEntry.
type SkillResource struct {
	URI    string `json:"uri"`
	Digest string `json:"digest"`
	Size   int64  `json:"size"`
}

// DirectoryReadParams are the params of resources/directory/read.
type DirectoryReadParams struct {
	mcp.ParamsBase
	URI    string `json:"uri"`
	Cursor string `json:"cursor,omitempty"`
}

// DirectoryReadResult lists the direct children of a directory.
type DirectoryReadResult struct {
	mcp.ResultBase
	ResultType string          `json:"resultType"`
	Resources  []*mcp.Resource `json:"resources"`
}

// addSkillsMethods answers the extension's methods through the SDK, as
// it answers the standard ones.
func (s *Server) addSkillsMethods() error {
	if err := mcp.AddReceivingCustomMethod(s.mcp, MethodSkillsList, s.skillsList); err != nil {
		return err
	}
	if err := mcp.AddReceivingCustomMethod(s.mcp, MethodSkillsGet, s.skillsGet); err != nil {
		return err
	}
	return mcp.AddReceivingCustomMethod(s.mcp, MethodDirectoryRead, s.directoryRead)
}

// validErrorData keeps every error the server answers with encodable.
// The SDK's ResourceNotFoundError quotes the URI with Go's %q into the
// error's JSON data, which is not JSON for a URI holding a control
// character ("\x00"): the answer then fails to encode, and the SDK drops
// the client's connection. Such data is encoded again, properly.
func validErrorData(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		var je *jsonrpc.Error
		if err == nil || !errors.As(err, &je) || je.Data == nil || json.Valid(je.Data) {
			return res, err
		}
		fixed := *je
		fixed.Data = nil
		if p, ok := req.GetParams().(*mcp.ReadResourceParams); ok {
			fixed.Data, _ = json.Marshal(map[string]string{"uri": p.URI})
		}
		return res, &fixed
	}
}

func invalidParams(format string, args ...any) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(format, args...)}
}

func (s *Server) index() *skillIndex {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.skills
}

func (s *Server) skillsList(ctx context.Context, _ *mcp.ServerSession, p *SkillsListParams) (*SkillsListResult, error) {
	select {
	case s.lists <- struct{}{}:
		defer func() { <-s.lists }()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	x := s.index()
	start := 0
	if p != nil && p.Cursor != "" {
		var err error
		if start, err = s.readCursor(p.Cursor, x); err != nil {
			return nil, err
		}
	}
	res := &SkillsListResult{ResultType: "complete", Skills: []SkillEntry{}, TTLMs: listTTL, CacheScope: "private"}
	end := min(start+listPageSize, len(x.skills))
	for _, is := range x.skills[start:end] {
		if is.refused == "" {
			res.Skills = append(res.Skills, is.served())
		}
	}
	if end < len(x.skills) {
		res.NextCursor = s.cursor(x.generation, end)
	}
	return res, nil
}

// cursor is an opaque page cursor: the listing's generation and the
// offset, signed with the server's key so that a client can neither forge
// one nor carry one over from another server or listing.
func (s *Server) cursor(generation uint64, offset int) string {
	var b [12 + 16]byte
	binary.BigEndian.PutUint64(b[:8], generation)
	binary.BigEndian.PutUint32(b[8:12], uint32(offset))
	copy(b[12:], s.cursorMAC(b[:12]))
	return base64.RawURLEncoding.EncodeToString(b[:])
}

func (s *Server) readCursor(c string, x *skillIndex) (int, error) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || len(b) != 28 || !hmac.Equal(b[12:], s.cursorMAC(b[:12])) {
		return 0, invalidParams("the cursor %q is not one this server gave: call %s without a cursor", truncate(c), MethodSkillsList)
	}
	if binary.BigEndian.Uint64(b[:8]) != x.generation {
		return 0, invalidParams("the skills changed since this cursor was given: call %s again without a cursor", MethodSkillsList)
	}
	off := int(binary.BigEndian.Uint32(b[8:12]))
	if off > len(x.skills) {
		return 0, invalidParams("the cursor is past the end of the listing: call %s without a cursor", MethodSkillsList)
	}
	return off, nil
}

func (s *Server) cursorMAC(data []byte) []byte {
	m := hmac.New(sha256.New, s.cursorKey[:])
	m.Write(data)
	return m.Sum(nil)[:16]
}

func newCursorKey() (k [32]byte) {
	rand.Read(k[:]) // never fails (crypto/rand)
	return k
}

// truncate shortens what a client sent before it is quoted back.
func truncate(v string) string {
	if len(v) > 80 {
		return v[:80] + "…"
	}
	return v
}

func (s *Server) skillsGet(_ context.Context, _ *mcp.ServerSession, p *SkillsGetParams) (*SkillsGetResult, error) {
	if p == nil {
		return nil, invalidParams("%s needs the uri of a skill's %s", MethodSkillsGet, skill.FileName)
	}
	key, rel, err := parseURI(p.URI)
	if err != nil || rel != skill.FileName {
		return nil, invalidParams("%q is not the %s of a skill this server serves: skill URIs are skill://NAME/%s", truncate(p.URI), skill.FileName, skill.FileName)
	}
	is := s.index().find(key)
	switch {
	case is == nil:
		return nil, invalidParams("no skill %q is served here: call %s to see the skills there are", truncate(key), MethodSkillsList)
	case is.refused != "":
		return nil, invalidParams("%s", is.refused)
	}
	return &SkillsGetResult{ResultType: "complete", Skill: is.served()}, nil
}

// directoryRead lists the direct children of a skill's directory, or of a
// directory in it; the listing fits one page, as a skill has at most
// maxFilesPerSkill files.
func (s *Server) directoryRead(_ context.Context, _ *mcp.ServerSession, p *DirectoryReadParams) (*DirectoryReadResult, error) {
	if p == nil {
		return nil, invalidParams("%s needs the uri of a directory", MethodDirectoryRead)
	}
	if p.Cursor != "" {
		return nil, invalidParams("the cursor %q is not one this server gave: its directory listings fit one page", truncate(p.Cursor))
	}
	key, rel, err := parseURI(strings.TrimSuffix(p.URI, "/"))
	if err != nil {
		return nil, invalidParams("%q is not a directory this server serves: %v", truncate(p.URI), err)
	}
	is := s.index().find(key)
	switch {
	case is == nil:
		return nil, invalidParams("no skill %q is served here: call %s to see the skills there are", truncate(key), MethodSkillsList)
	case is.refused != "":
		return nil, invalidParams("%s", is.refused)
	}
	prefix := ""
	if rel != "" {
		prefix = rel + "/"
	}
	s.mu.Lock()
	resources := s.resources
	s.mu.Unlock()
	res := &DirectoryReadResult{ResultType: "complete", Resources: []*mcp.Resource{}}
	for _, f := range is.files {
		rest, ok := strings.CutPrefix(f.rel, prefix)
		if !ok {
			continue
		}
		name, _, isDir := strings.Cut(rest, "/")
		if isDir {
			dir := prefix + name
			res.Resources = append(res.Resources, &mcp.Resource{URI: URI(key, dir), Name: name, MIMEType: DirectoryMIMEType})
			continue
		}
		r := &mcp.Resource{URI: URI(key, f.rel), Name: name, Size: f.size, MIMEType: "application/octet-stream"}
		if sf, ok := resources[r.URI]; ok {
			r.MIMEType = sf.resource.MIMEType
		}
		res.Resources = append(res.Resources, r)
	}
	if len(res.Resources) == 0 {
		return nil, invalidParams("%q is not a directory of skill %s", truncate(p.URI), key)
	}
	slices.SortFunc(res.Resources, func(a, b *mcp.Resource) int { return strings.Compare(a.URI, b.URI) })
	res.Resources = slices.CompactFunc(res.Resources, func(a, b *mcp.Resource) bool { return a.URI == b.URI })
	return res, nil
}

// parseURI splits skill://KEY/PATH into the skill's key and the slash
// path in it ("" for the skill itself). Only the form URI writes is
// accepted: no other scheme, no query or fragment, no empty, "." or ".."
// segment, and no escaped separator, so that one file has one URI.
func parseURI(uri string) (key, rel string, err error) {
	rest, ok := strings.CutPrefix(uri, uriScheme+"://")
	if !ok {
		return "", "", fmt.Errorf("not a %s:// URI", uriScheme)
	}
	segs := strings.Split(rest, "/")
	for i, seg := range segs {
		v, err := url.PathUnescape(seg)
		if err != nil || v == "" || v == "." || v == ".." || strings.ContainsAny(v, "/\\") || url.PathEscape(v) != seg {
			return "", "", fmt.Errorf("segment %d is not a name", i+1)
		}
		segs[i] = v
	}
	return segs[0], strings.Join(segs[1:], "/"), nil
}
