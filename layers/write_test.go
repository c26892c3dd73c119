package layers

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
)

func TestDigestInvariance(t *testing.T) {
	t.Parallel()
	files := generatedTree()
	ref := t.TempDir()
	buildTree(t, ref, files, defaultBuild)
	want, _ := writeLayer(t, ref)

	cases := []struct {
		name  string
		build func(t *testing.T) string
	}{
		{"mtimes", func(t *testing.T) string {
			o := defaultBuild
			o.mtime = time.Date(2001, 2, 3, 4, 5, 6, 789, time.UTC)
			return built(t, files, o)
		}},
		{"restrictive umask", func(t *testing.T) string {
			return built(t, files, buildOpts{filePerm: 0o600, execPerm: 0o700, dirPerm: 0o700})
		}},
		{"permissive umask", func(t *testing.T) string {
			return built(t, files, buildOpts{filePerm: 0o666, execPerm: 0o777, dirPerm: 0o777})
		}},
		{"other non-exec bits", func(t *testing.T) string {
			// Any one execute bit makes a file executable; the rest is noise.
			return built(t, files, buildOpts{filePerm: 0o440, execPerm: 0o610, dirPerm: 0o750})
		}},
		{"reverse creation order", func(t *testing.T) string {
			o := defaultBuild
			o.reverse = true
			return built(t, files, o)
		}},
		{"owner", func(t *testing.T) string {
			if os.Geteuid() != 0 {
				t.Skip("changing the owner of files needs root")
			}
			root := built(t, files, defaultBuild)
			must(t, filepath.Walk(root, func(p string, _ os.FileInfo, err error) error {
				if err != nil {
					return err
				}
				return os.Lchown(p, 4242, 4343)
			}))
			return root
		}},
		{"location", func(t *testing.T) string {
			root := filepath.Join(t.TempDir(), "some", "other", "place")
			buildTree(t, root, files, defaultBuild)
			return root
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := writeLayer(t, tc.build(t))
			if got.Digest != want.Digest {
				t.Errorf("digest = %s, want %s", got.Digest, want.Digest)
			}
		})
	}
}

func built(t *testing.T, files []fileSpec, o buildOpts) string {
	root := t.TempDir()
	buildTree(t, root, files, o)
	return root
}

// TestDigestSensitivity guards the invariance test against a digest that
// ignores everything: content, names and the execute bit must count.
func TestDigestSensitivity(t *testing.T) {
	t.Parallel()
	base := []fileSpec{{path: "s/a", body: "x"}, {path: "s/b", body: "y", exec: true}}
	variants := map[string][]fileSpec{
		"content": {{path: "s/a", body: "z"}, {path: "s/b", body: "y", exec: true}},
		"name":    {{path: "s/c", body: "x"}, {path: "s/b", body: "y", exec: true}},
		"exec":    {{path: "s/a", body: "x"}, {path: "s/b", body: "y"}},
		"dir":     {{path: "s/a", body: "x"}, {path: "s/b", body: "y", exec: true}, {path: "s/e/"}},
	}
	want, _ := writeLayer(t, built(t, base, defaultBuild))
	for name, files := range variants {
		got, _ := writeLayer(t, built(t, files, defaultBuild))
		if got.Digest == want.Digest {
			t.Errorf("%s change left the digest at %s", name, got.Digest)
		}
	}
}

func TestGzipHeader(t *testing.T) {
	t.Parallel()
	_, data := writeLayer(t, goldenFixture)
	want := []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}
	if !bytes.Equal(data[:10], want) {
		t.Errorf("gzip header = % x, want % x (no flags, mtime 0, OS unknown)", data[:10], want)
	}
}

// rawHeader is a tar header block as found in the stream, with the full
// name resolved from prefix, name or a preceding PAX record.
type rawHeader struct {
	block    tarBlock
	name     string
	usedPAX  bool
	typeflag byte
}

// parseRaw walks the tar blocks by hand, so that the format checks do not
// trust archive/tar's reader to report what is actually in the stream.
func parseRaw(t *testing.T, data []byte) []rawHeader {
	t.Helper()
	var out []rawHeader
	paxPath := ""
	for off := 0; ; {
		var blk tarBlock
		copy(blk[:], data[off:off+blockSize])
		off += blockSize
		if blk == (tarBlock{}) {
			rest := data[off:]
			if len(rest) != blockSize || !bytes.Equal(rest, make([]byte, blockSize)) {
				t.Fatalf("archive does not end with exactly two zero blocks")
			}
			return out
		}
		checkChecksum(t, blk)
		size := octalField(t, blk[offSize:offSize+12])
		body := data[off : off+int(size)]
		off += int(size + padding(size))
		if blk[offTypeflag] == typePAXHeader {
			paxPath = parsePAXPath(t, string(body))
			continue
		}
		h := rawHeader{block: blk, typeflag: blk[offTypeflag], name: cString(blk[offName : offName+nameSize])}
		if prefix := cString(blk[offPrefix : offPrefix+prefixSize]); prefix != "" {
			h.name = prefix + "/" + h.name
		}
		if paxPath != "" {
			h.name, h.usedPAX, paxPath = paxPath, true, ""
		}
		out = append(out, h)
	}
}

func checkChecksum(t *testing.T, blk tarBlock) {
	t.Helper()
	var sum int64
	for i, c := range blk {
		if i >= offChksum && i < offChksum+8 {
			c = ' '
		}
		sum += int64(c)
	}
	if got := octalField(t, blk[offChksum:offChksum+7]); got != sum {
		t.Errorf("checksum field %d, computed %d", got, sum)
	}
}

func octalField(t *testing.T, b []byte) int64 {
	t.Helper()
	n, err := strconv.ParseInt(strings.TrimRight(string(b), "\x00 "), 8, 64)
	if err != nil {
		t.Fatalf("octal field %q: %v", b, err)
	}
	return n
}

func cString(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

func parsePAXPath(t *testing.T, body string) string {
	t.Helper()
	lenStr, rest, _ := strings.Cut(body, " ")
	n, err := strconv.Atoi(lenStr)
	if err != nil || n != len(body) {
		t.Fatalf("PAX data %q is not a single record", body)
	}
	kv := strings.TrimSuffix(rest, "\n")
	path, ok := strings.CutPrefix(kv, "path=")
	if !ok {
		t.Fatalf("PAX record %q is not a path", kv)
	}
	return path
}

func TestTarFormat(t *testing.T) {
	t.Parallel()
	gen := t.TempDir()
	buildTree(t, gen, generatedTree(), defaultBuild)
	for name, root := range map[string]string{"fixture": goldenFixture, "generated": gen} {
		t.Run(name, func(t *testing.T) {
			res, data := writeLayer(t, root)
			raw := parseRaw(t, gunzip(t, data))
			checkRawHeaders(t, raw)
			checkLayerOrder(t, raw)
			checkWithArchiveTar(t, gunzip(t, data), raw)
			if len(res.Files) == 0 {
				t.Fatal("no files written")
			}
		})
	}
}

func checkRawHeaders(t *testing.T, raw []rawHeader) {
	t.Helper()
	for _, h := range raw {
		b := h.block
		fields := map[string]struct{ got, want string }{
			"magic":    {string(b[offMagic : offMagic+8]), "ustar\x0000"},
			"mtime":    {string(b[offMtime : offMtime+12]), "00000000000\x00"},
			"uid":      {string(b[offUID : offUID+8]), "0000000\x00"},
			"gid":      {string(b[offGID : offGID+8]), "0000000\x00"},
			"uname":    {string(b[offUname : offUname+32]), strings.Repeat("\x00", 32)},
			"gname":    {string(b[offGname : offGname+32]), strings.Repeat("\x00", 32)},
			"linkname": {string(b[157:257]), strings.Repeat("\x00", 100)},
		}
		for field, v := range fields {
			if v.got != v.want {
				t.Errorf("%s: %s = %q, want %q", h.name, field, v.got, v.want)
			}
		}
		mode := string(b[offMode : offMode+8])
		switch {
		case h.typeflag == typeDir:
			if !strings.HasSuffix(h.name, "/") || mode != "0000755\x00" {
				t.Errorf("directory %s: mode %q, want trailing slash and 0755", h.name, mode)
			}
		case h.typeflag == typeReg:
			if mode != "0000644\x00" && mode != "0000755\x00" {
				t.Errorf("file %s: mode %q", h.name, mode)
			}
		default:
			t.Errorf("%s: typeflag %q", h.name, h.typeflag)
		}
		if h.usedPAX != (len(h.name) > 255) {
			t.Errorf("%s (%d bytes): PAX used = %v, want PAX only past 255 bytes", h.name, len(h.name), h.usedPAX)
		}
	}
}

// checkLayerOrder checks the byte order of names and that every directory
// has an entry before anything inside it.
func checkLayerOrder(t *testing.T, raw []rawHeader) {
	t.Helper()
	seenDirs := map[string]bool{}
	for i, h := range raw {
		if i > 0 && raw[i-1].name >= h.name {
			t.Errorf("%q comes after %q", h.name, raw[i-1].name)
		}
		if strings.HasPrefix(h.name, "/") || strings.HasPrefix(h.name, "./") {
			t.Errorf("name %q is not relative", h.name)
		}
		if parent, _ := splitParent(strings.TrimSuffix(h.name, "/")); parent != "" && !seenDirs[parent+"/"] {
			t.Errorf("%q comes before its directory %q", h.name, parent+"/")
		}
		if h.typeflag == typeDir {
			seenDirs[h.name] = true
		}
	}
}

func splitParent(p string) (string, string) {
	i := strings.LastIndex(p, "/")
	if i < 0 {
		return "", p
	}
	return p[:i], p[i+1:]
}

// checkWithArchiveTar reads the stream back with archive/tar: it must agree
// with the raw parse and see ustar wherever no PAX record was written.
func checkWithArchiveTar(t *testing.T, tarData []byte, raw []rawHeader) {
	t.Helper()
	tr := tar.NewReader(bytes.NewReader(tarData))
	for i := 0; ; i++ {
		hdr, err := tr.Next()
		if err == io.EOF {
			if i != len(raw) {
				t.Errorf("archive/tar saw %d entries, raw parse %d", i, len(raw))
			}
			return
		}
		must(t, err)
		want := raw[i]
		if hdr.Name != want.name || hdr.ModTime.Unix() != 0 || hdr.Uid != 0 || hdr.Gid != 0 || hdr.Uname != "" || hdr.Gname != "" {
			t.Errorf("entry %d: archive/tar header %+v, raw name %q", i, hdr, want.name)
		}
		wantFormat := tar.FormatUSTAR
		switch {
		case want.usedPAX:
			wantFormat = tar.FormatPAX
		case toASCII(want.name) != want.name:
			// archive/tar calls a ustar block with UTF-8 bytes "unknown":
			// POSIX only promises a portable charset. The raw checks above
			// already saw the ustar magic.
			wantFormat = tar.FormatUnknown
		}
		if hdr.Format != wantFormat {
			t.Errorf("%s: format %v, want %v", hdr.Name, hdr.Format, wantFormat)
		}
	}
}

// TestEncoderMatchesArchiveTar holds the hand-written encoder to
// archive/tar's bytes for ASCII names, including both PAX cases: past 255
// bytes, and a shorter name that no prefix split can hold.
func TestEncoderMatchesArchiveTar(t *testing.T) {
	t.Parallel()
	files := append(generatedTree(),
		fileSpec{path: "x/" + strings.Repeat("n", 150), body: "unsplittable: basename over 100 bytes"},
		fileSpec{path: "x/" + strings.Repeat("p", 98), body: "exactly 100 bytes"},
		fileSpec{path: "x/" + strings.Repeat("q", 99), body: "101 bytes"},
		fileSpec{path: "y/" + strings.Repeat("d", 97) + "/f", body: "directory of 100 bytes with its slash"},
		fileSpec{path: "z/" + strings.Repeat("e", 98) + "/f", body: "directory of 101 bytes with its slash"},
	)
	root := built(t, files, defaultBuild)
	tree := mustScan(t, ScanOptions{Root: root})
	var got bytes.Buffer
	_, err := Write(&got, tree, WriteOptions{})
	must(t, err)

	var want bytes.Buffer
	tw := tar.NewWriter(&want)
	for _, e := range tree.Entries {
		hdr := &tar.Header{Name: e.Path, Mode: 0o644, Typeflag: tar.TypeReg, Size: e.Size, ModTime: time.Unix(0, 0), Format: tar.FormatUSTAR}
		if e.Dir {
			hdr.Name, hdr.Mode, hdr.Typeflag = e.Path+"/", 0o755, tar.TypeDir
		} else if e.Executable {
			hdr.Mode = 0o755
		}
		if err := tw.WriteHeader(hdr); err != nil {
			hdr.Format = tar.FormatPAX
			must(t, tw.WriteHeader(hdr))
		}
		if !e.Dir {
			content, err := os.ReadFile(e.Source)
			must(t, err)
			_, err = tw.Write(content)
			must(t, err)
		}
	}
	must(t, tw.Close())
	if gotTar := gunzip(t, got.Bytes()); !bytes.Equal(gotTar, want.Bytes()) {
		t.Errorf("tar stream differs from archive/tar's (%d vs %d bytes) at offset %d",
			len(gotTar), want.Len(), firstDiff(gotTar, want.Bytes()))
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func TestWriteRefusesBeforeWriting(t *testing.T) {
	t.Parallel()
	files := []fileSpec{{path: "s/a", body: strings.Repeat("a", 1000)}, {path: "s/b", body: strings.Repeat("b", 1000)}}
	root := built(t, files, defaultBuild)
	tree := mustScan(t, ScanOptions{Root: root})
	withProblem := *tree
	withProblem.Problems = []Problem{{Path: "s/l", Kind: ProblemSymlink, Detail: "test"}}

	cases := []struct {
		name  string
		tree  *Tree
		limit int64
		check func(t *testing.T, err error)
	}{
		{"over limit", tree, 1999, func(t *testing.T, err error) {
			var se *SizeError
			if !errors.As(err, &se) || se.Size != 2000 || se.Limit != 1999 {
				t.Fatalf("err = %v, want *SizeError{2000, 1999}", err)
			}
			if !strings.Contains(err.Error(), "--max-size") {
				t.Errorf("message %q does not suggest --max-size", err)
			}
		}},
		{"problems", &withProblem, 0, func(t *testing.T, err error) {
			var pe *ProblemsError
			if !errors.As(err, &pe) || len(pe.Problems) != 1 || pe.Problems[0].Path != "s/l" {
				t.Fatalf("err = %v, want *ProblemsError listing s/l", err)
			}
		}},
		{"entries out of order", &Tree{Entries: []Entry{tree.Entries[2], tree.Entries[1]}}, 0, func(t *testing.T, err error) {
			if err == nil {
				t.Fatal("unordered entries accepted")
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			_, err := Write(&buf, tc.tree, WriteOptions{Limits: Limits{MaxSize: tc.limit}})
			tc.check(t, err)
			if buf.Len() != 0 {
				t.Errorf("%d bytes written before refusing", buf.Len())
			}
		})
	}
}

// copyExactly is the last guard against a file changing during the copy,
// after Write has checked its size.
func TestCopyExactly(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "f")
	must(t, os.WriteFile(p, []byte("12345"), 0o644))
	for _, tc := range []struct {
		size int64
		ok   bool
	}{{5, true}, {4, false}, {6, false}} {
		f, err := os.Open(p)
		must(t, err)
		var out bytes.Buffer
		err = copyExactly(&out, f, tc.size, make([]byte, 2))
		f.Close()
		if (err == nil) != tc.ok {
			t.Errorf("size %d: err = %v, want ok = %v", tc.size, err, tc.ok)
		}
	}
}

func TestWriteLimits(t *testing.T) {
	t.Parallel()
	root := built(t, []fileSpec{{path: "s/a", body: strings.Repeat("a", 2000)}}, defaultBuild)
	tree := mustScan(t, ScanOptions{Root: root})
	for _, tc := range []struct {
		limit int64
		ok    bool
	}{{-1, true}, {0, true}, {2000, true}, {1999, false}} {
		_, err := Write(io.Discard, tree, WriteOptions{Limits: Limits{MaxSize: tc.limit}})
		if (err == nil) != tc.ok {
			t.Errorf("MaxSize %d: err = %v, want ok = %v", tc.limit, err, tc.ok)
		}
	}
}

// A file that changes between Scan and Write must not produce an archive
// that any reader accepts.
func TestWriteFileChangedSinceScan(t *testing.T) {
	t.Parallel()
	for name, change := range map[string]string{"grew": "abcdef", "shrank": "ab"} {
		t.Run(name, func(t *testing.T) {
			root := built(t, []fileSpec{{path: "s/a", body: "abcd"}, {path: "s/b", body: "b"}}, defaultBuild)
			tree := mustScan(t, ScanOptions{Root: root})
			must(t, os.WriteFile(filepath.Join(root, "s", "a"), []byte(change), 0o644))
			var buf bytes.Buffer
			_, err := Write(&buf, tree, WriteOptions{})
			if err == nil || !strings.Contains(err.Error(), "s/a") {
				t.Fatalf("err = %v, want an error naming s/a", err)
			}
			if err := Walk(bytes.NewReader(buf.Bytes()), ReadOptions{}, func(Header, io.Reader) error { return nil }); err == nil {
				t.Error("the partial output reads as a valid layer")
			}
		})
	}
}

func TestWriteResultFiles(t *testing.T) {
	t.Parallel()
	root := built(t, []fileSpec{{path: "s/b", body: "bee", exec: true}, {path: "s/a", body: "ay"}, {path: "t/empty", body: ""}}, defaultBuild)
	res, data := writeLayer(t, root)
	if res.Size != int64(len(data)) || res.Digest != digest.FromBytes(data) {
		t.Errorf("result %s (%d bytes), wrote %s (%d bytes)", res.Digest, res.Size, digest.FromBytes(data), len(data))
	}
	want := []FileDigest{
		{Path: "s/a", Size: 2, Digest: digest.Digest("sha256:" + sha256Hex("ay"))},
		{Path: "s/b", Size: 3, Executable: true, Digest: digest.Digest("sha256:" + sha256Hex("bee"))},
		{Path: "t/empty", Size: 0, Digest: digest.Digest("sha256:" + sha256Hex(""))},
	}
	if len(res.Files) != len(want) {
		t.Fatalf("Files = %+v, want %+v", res.Files, want)
	}
	for i := range want {
		if res.Files[i] != want[i] {
			t.Errorf("Files[%d] = %+v, want %+v", i, res.Files[i], want[i])
		}
	}
}

// Every top-level entry of a skills layer is a skill directory, and the
// reader refuses a file there: the writer refuses to write one, naming
// it, before writing anything, whether it sorts before the skills or
// after them.
func TestWriteRefusesTopLevelFile(t *testing.T) {
	t.Parallel()
	for _, stray := range []string{"README.md", "zz-notes.md"} {
		t.Run(stray, func(t *testing.T) {
			t.Parallel()
			root := built(t, []fileSpec{{path: "fix-issue/SKILL.md", body: "---\nname: fix-issue\n---\n"}, {path: stray, body: "not a skill"}}, defaultBuild)
			check := func(what string, err error, written int) {
				t.Helper()
				if err == nil || !strings.Contains(err.Error(), strconv.Quote(stray)) || !strings.Contains(err.Error(), "top level") || written != 0 {
					t.Errorf("%s: err = %v, %d bytes written; want the file named and nothing written", what, err, written)
				}
			}
			var buf bytes.Buffer
			_, err := Write(&buf, mustScan(t, ScanOptions{Root: root}), WriteOptions{})
			check("Write", err, buf.Len())
			o, err := ScanParts(ScanOptions{Root: root}, func(*Tree) error { return nil })
			must(t, err)
			var outlined bytes.Buffer
			_, err = o.Write(&outlined, WriteOptions{}, nil)
			check("Outline.Write", err, outlined.Len())
		})
	}
}
