package layers

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/pkg/errdefs"
)

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

// hostileCase is an archive the reader must refuse, and how.
type hostileCase struct {
	name string
	data []byte
	opts ReadOptions
	want func(error) bool
	what string // the expected error, for messages
}

func isUnsafe(err error) bool {
	var e *UnsafeEntryError
	return errors.As(err, &e)
}

func isSize(err error) bool {
	var e *SizeError
	return errors.As(err, &e)
}

func isTruncated(err error) bool {
	return errors.Is(err, io.ErrUnexpectedEOF) && strings.Contains(err.Error(), "truncated")
}

// isTrailing is the refusal of what follows the tar trailer: a corrupt
// layer, data loss.
func isTrailing(err error) bool {
	return isCorrupt(err) && strings.Contains(err.Error(), "after the end of the tar archive") && Class(err) == errdefs.DataLoss
}

func isCorrupt(err error) bool {
	return err != nil && strings.Contains(err.Error(), "corrupt")
}

// hostileCorpus builds the refused archives; FuzzWalk is seeded with them.
func hostileCorpus(t testing.TB) []hostileCase {
	valid := rawArchive(t, dir("s/"), file("s/a.md", "hello"))
	hidden := rawArchive(t, file("s/hidden.md", "never checked, never signed"))
	unsafe := func(name string, entries ...rawEntry) hostileCase {
		return hostileCase{name: name, data: rawArchive(t, entries...), want: isUnsafe, what: "*UnsafeEntryError"}
	}
	cases := []hostileCase{
		unsafe("parent traversal", file("../x", "x")),
		unsafe("inner traversal", file("a/../../x", "x")),
		unsafe("dot-dot directory", dir("../")),
		unsafe("absolute path", file("/etc/cron.d/x", "x")),
		unsafe("dot slash twice", file("././a", "x")),
		unsafe("double slash", file("a//b", "x")),
		{name: "file with trailing slash", data: ourTar(t, "a/", typeReg), want: isUnsafe, what: "*UnsafeEntryError"},
		unsafe("empty name", file("", "x")),
		unsafe("backslash", file(`a\..\..\x`, "x")),
		unsafe("newline", file("a\nb", "x")),
		unsafe("symlink", file("s/a", "x"), special("s/l", tar.TypeSymlink, "/etc/passwd")),
		unsafe("hard link", file("s/a", "x"), special("s/h", tar.TypeLink, "s/a")),
		unsafe("char device", special("s/c", tar.TypeChar, "")),
		unsafe("block device", special("s/b", tar.TypeBlock, "")),
		unsafe("fifo", special("s/f", tar.TypeFifo, "")),
		unsafe("unknown type", special("s/u", 'Z', "")),
		unsafe("duplicate file", file("s/a", "one"), file("s/a", "two")),
		unsafe("duplicate directory", dir("s/"), dir("s/")),
		unsafe("directory then file", dir("s/a/"), file("s/a", "x")),
		unsafe("file then directory", file("s/a", "x"), dir("s/a/")),
		unsafe("file under a file", file("s/a", "x"), file("s/a/b", "y")),
		// Top-level directories become skill directories in the folders
		// runtimes read: the one name rule applies to them.
		unsafe("git directory", file(".git/config", "x")),
		// A name reviewers cannot read as written: listings and MCP show
		// names to people and models alike.
		unsafe("hidden character in a file name", file("s/references/notes\u202Edm.md", "x")),
		unsafe("tag characters in a directory name", file("s/a\U000E0068\U000E0069/b.md", "x")),
		unsafe("hidden character in a skill name", file("s\u200B/SKILL.md", "x")),
		unsafe("option-like skill", dir("-rf/"), file("-rf/SKILL.md", "x")),
		unsafe("staging-like skill", file(".stax-staging-x/SKILL.md", "x")),
		unsafe("record-named skill", file(".stax-install.json/SKILL.md", "x")),
		unsafe("implied directory then file", file("s/a/b", "y"), file("s/a", "x")),
		// Paths past the limits of the one name rule: long or deep ones
		// would make every check and every extraction cost in proportion
		// to depth times length.
		unsafe("path of 4 KiB", file("s/"+strings.Repeat("d/", 2050)+"f", "x")),
		unsafe("path too long", file("s/"+strings.Repeat(strings.Repeat("x", 200)+"/", 6)+"f", "x")),
		unsafe("path too deep", file("s/"+strings.Repeat("d/", maxPathSegments-1)+"f", "x")),
		unsafe("directory too deep", dir("s/"+strings.Repeat("d/", maxPathSegments))),
		unsafe("path element too long", file("s/"+strings.Repeat("x", maxSegmentBytes+1), "x")),
		// Every top-level entry is a skill directory: a file there belongs
		// to no skill, and another reader would extract it.
		unsafe("file at the top level", dir("s/"), file("s/SKILL.md", "x"), file("README.md", "x")),
		unsafe("file at the top level first", file("README.md", "x"), file("s/SKILL.md", "x")),
		// Back in a directory after another one, as other writers may be.
		unsafe("duplicate file, another directory between", file("s/a", "one"), file("t/b", "x"), file("s/a", "two")),
		unsafe("file under a file, another directory between", file("s/a", "x"), dir("t/"), file("s/a/b", "y")),
		unsafe("implied directory then file, another directory between", file("s/a/b", "y"), file("r/x", "x"), file("s/a", "x")),
		unsafe("duplicate after directories out of order", file("t/a", "x"), file("s/a", "x"), file("u/a", "x"), file("s/a", "x")),
		{
			name: "declared size over limit",
			data: rawArchive(t, rawEntry{hdr: tar.Header{Name: "s/big", Typeflag: tar.TypeReg, Mode: 0o644, Size: 1 << 40}, cut: true}),
			want: isSize, what: "*SizeError",
		},
		{
			name: "cumulative size over limit",
			data: rawArchive(t, file("s/a", strings.Repeat("a", 1500)), file("s/b", strings.Repeat("b", 1500))),
			opts: ReadOptions{Limits: Limits{MaxSize: 2000}},
			want: isSize, what: "*SizeError",
		},
		{
			name: "too many entries",
			data: rawArchive(t, dir("s/"), file("s/a", ""), file("s/b", ""), file("s/c", "")),
			opts: ReadOptions{Limits: Limits{MaxFiles: 3}},
			want: func(err error) bool { var e *CountError; return errors.As(err, &e) && e.Limit == 3 },
			what: "*CountError",
		},
		{name: "empty input", data: nil, want: isTruncated, what: "truncated"},
		{name: "truncated gzip header", data: valid[:5], want: isTruncated, what: "truncated"},
		{name: "truncated gzip body", data: valid[:len(valid)/2], want: isTruncated, what: "truncated"},
		{name: "missing gzip trailer", data: valid[:len(valid)-4], want: isTruncated, what: "truncated"},
		{name: "truncated tar", data: gzipBytes(t, gunzip(t, valid)[:700]), want: isTruncated, what: "truncated"},
		{name: "not gzip", data: []byte("this is not a layer at all"), want: isCorrupt, what: "corrupt"},
		{name: "garbage after gzip", data: append(slices.Clone(valid), "garbage after the gzip member"...), want: isCorrupt, what: "corrupt"},
		{name: "bad gzip checksum", data: flipByte(valid, len(valid)-6), want: isCorrupt, what: "corrupt"},
		{
			name: "huge data after the tar trailer",
			data: gzipBytes(t, append(gunzip(t, valid), make([]byte, 2<<20)...)),
			want: isCorrupt, what: "corrupt",
		},
		// Past the end-of-archive marker only zero padding may follow:
		// GNU tar --ignore-zeros, or a reader that keeps reading, would
		// take anything else for entries stax never checked.
		{
			name: "entries after the tar trailer",
			data: gzipBytes(t, append(gunzip(t, valid), gunzip(t, hidden)...)),
			want: isTrailing, what: "data after the end",
		},
		{
			name: "entries after the tar trailer past zero padding",
			data: gzipBytes(t, slices.Concat(gunzip(t, valid), make([]byte, 9*blockSize), gunzip(t, hidden))),
			want: isTrailing, what: "data after the end",
		},
		{
			name: "one byte that is not zero in the padding",
			data: gzipBytes(t, slices.Concat(gunzip(t, valid), make([]byte, 5000), []byte{1}, make([]byte, 3000))),
			want: isTrailing, what: "data after the end",
		},
		{
			name: "entries in a second gzip member",
			data: slices.Concat(valid, hidden),
			want: isTrailing, what: "data after the end",
		},
		{
			name: "wrong digest",
			data: valid,
			opts: ReadOptions{Digest: digest.FromString("something else")},
			want: func(err error) bool {
				var e *DigestMismatchError
				return errors.As(err, &e) && e.Actual == digest.FromBytes(valid) && e.Expected == digest.FromString("something else")
			},
			what: "*DigestMismatchError",
		},
	}
	return cases
}

// ourTar writes one header with the package's encoder, for what archive/tar
// refuses to write.
func ourTar(t testing.TB, name string, flag byte) []byte {
	var buf bytes.Buffer
	tw := &tarWriter{w: &buf}
	must(t, tw.writeHeader(name, 0o644, 0, flag))
	must(t, tw.close())
	return gzipBytes(t, buf.Bytes())
}

func flipByte(b []byte, i int) []byte {
	out := slices.Clone(b)
	out[i] ^= 0xff
	return out
}

func TestWalkRefusesHostileArchives(t *testing.T) {
	t.Parallel()
	for _, tc := range hostileCorpus(t) {
		t.Run(tc.name, func(t *testing.T) {
			err := Walk(bytesReader(tc.data), tc.opts, func(h Header, r io.Reader) error {
				_, err := io.Copy(io.Discard, r)
				return err
			})
			if !tc.want(err) {
				t.Errorf("Walk: err = %v, want %s", err, tc.what)
			}
		})
	}
}

func TestExtractRefusesHostileArchives(t *testing.T) {
	t.Parallel()
	for _, tc := range hostileCorpus(t) {
		for _, existing := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/existing=%v", tc.name, existing), func(t *testing.T) {
				parent := t.TempDir()
				dest := filepath.Join(parent, "dest")
				if existing {
					must(t, os.Mkdir(dest, 0o700))
				}
				files, err := Extract(bytesReader(tc.data), dest, tc.opts)
				if !tc.want(err) || files != nil {
					t.Errorf("Extract: err = %v (%d files), want %s", err, len(files), tc.what)
				}
				checkUntouched(t, parent, dest, existing)
			})
		}
	}
}

// checkUntouched asserts dest is as before a failed Extract, and that no
// staging directory is left behind.
func checkUntouched(t *testing.T, parent, dest string, existed bool) {
	t.Helper()
	names, err := os.ReadDir(parent)
	must(t, err)
	for _, n := range names {
		if strings.HasPrefix(n.Name(), StagingPrefix) {
			t.Errorf("staging directory %s left behind", n.Name())
		}
	}
	fi, err := os.Stat(dest)
	if !existed {
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("dest exists after a failed extract (err %v)", err)
		}
		return
	}
	must(t, err)
	if !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Errorf("dest mode = %v, want the original 0700 directory", fi.Mode())
	}
	if inside, _ := os.ReadDir(dest); len(inside) != 0 {
		t.Errorf("dest holds %d entries after a failed extract", len(inside))
	}
}

func TestWalkAcceptsOtherWriters(t *testing.T) {
	t.Parallel()
	globalHeader := rawEntry{hdr: tar.Header{Typeflag: tar.TypeXGlobalHeader, PAXRecords: map[string]string{"comment": "3f1c0de"}}}
	gnuLong := file("s/"+strings.Repeat("g", 150), "gnu long name")
	gnuLong.hdr.Format = tar.FormatGNU
	paxLong := file("s/"+strings.Repeat(strings.Repeat("p", 99)+"/", 3)+"q", "pax long name")
	paxLong.hdr.Format = tar.FormatPAX
	oldReg := file("s/old", "v7")
	oldReg.hdr.Typeflag = '\x00'
	dirNoSlash := dir("t")

	data := rawArchive(t,
		globalHeader,
		file("b/c/d.txt", "out of order, parents missing"),
		file("a/a.txt", "a"),
		dir("b/"),
		file("s/v1..2.md", "two dots are fine"),
		gnuLong, paxLong, oldReg, dirNoSlash,
		rawEntry{hdr: tar.Header{Name: "s/x.sh", Typeflag: tar.TypeReg, Mode: 0o700, Size: 2, Uid: 1000, Uname: "dev"}, body: "#!"},
	)
	dest := filepath.Join(t.TempDir(), "out")
	files, err := Extract(bytesReader(data), dest, ReadOptions{Digest: digest.FromBytes(data)})
	must(t, err)
	var got []string
	for _, f := range files {
		got = append(got, f.Path)
	}
	want := []string{"b/c/d.txt", "a/a.txt", "s/v1..2.md", gnuLong.hdr.Name, paxLong.hdr.Name, "s/old", "s/x.sh"}
	if !slices.Equal(got, want) {
		t.Errorf("files = %q, want %q in archive order", got, want)
	}
	for _, f := range files {
		if (f.Path == "s/x.sh") != f.Executable {
			t.Errorf("%s executable = %v", f.Path, f.Executable)
		}
	}
	body, err := os.ReadFile(filepath.Join(dest, "b", "c", "d.txt"))
	if err != nil || string(body) != "out of order, parents missing" {
		t.Errorf("b/c/d.txt = %q, %v", body, err)
	}
	if fi, err := os.Stat(filepath.Join(dest, "t")); err != nil || !fi.IsDir() {
		t.Errorf("directory without trailing slash: %v, %v", fi, err)
	}
	checkExtractedModes(t, dest)
}

// Tar writers pad an archive with zeros to their record size (GNU tar to
// 10 KiB, with -b up to 1 MiB), and the padding may come in a gzip member
// of its own: zeros after the end-of-archive marker hide nothing.
func TestWalkAcceptsZeroPadding(t *testing.T) {
	t.Parallel()
	valid := rawArchive(t, dir("s/"), file("s/a.md", "hello"))
	raw := gunzip(t, valid)
	toRecord := make([]byte, 10240-len(raw)%10240)
	for name, data := range map[string][]byte{
		"to a GNU tar record":     gzipBytes(t, slices.Concat(raw, toRecord)),
		"up to the bound":         gzipBytes(t, slices.Concat(raw, make([]byte, maxTrailingData))),
		"in a second gzip member": slices.Concat(valid, gzipBytes(t, toRecord)),
		"in an empty gzip member": slices.Concat(valid, gzipBytes(t, nil)),
		"split over gzip members": slices.Concat(gzipBytes(t, raw[:700]), gzipBytes(t, raw[700:]), gzipBytes(t, toRecord)),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var got []string
			err := Walk(bytesReader(data), ReadOptions{Digest: digest.FromBytes(data)}, func(h Header, r io.Reader) error {
				got = append(got, h.Path)
				_, err := io.Copy(io.Discard, r)
				return err
			})
			if err != nil || !slices.Equal(got, []string{"s", "s/a.md"}) {
				t.Errorf("Walk: %q, %v", got, err)
			}
		})
	}
}

// checkExtractedModes asserts the only modes a layer may produce.
func checkExtractedModes(t *testing.T, dest string) {
	t.Helper()
	must(t, filepath.WalkDir(dest, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		mode := fi.Mode()
		switch {
		case mode.IsDir() && mode.Perm() != 0o755:
			t.Errorf("%s: directory mode %v, want 0755", p, mode)
		case mode.IsRegular() && mode.Perm() != 0o644 && mode.Perm() != 0o755:
			t.Errorf("%s: file mode %v, want 0644 or 0755", p, mode)
		case !mode.IsDir() && !mode.IsRegular():
			t.Errorf("%s: unexpected %v", p, mode)
		}
		return nil
	}))
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	res, data := writeLayer(t, goldenFixture)
	for _, existing := range []bool{false, true} {
		t.Run(fmt.Sprintf("existing=%v", existing), func(t *testing.T) {
			dest := filepath.Join(t.TempDir(), "out")
			if existing {
				must(t, os.Mkdir(dest, 0o700))
			}
			files, err := Extract(bytesReader(data), dest, ReadOptions{Digest: res.Digest})
			must(t, err)
			if !slices.Equal(files, res.Files) {
				t.Errorf("extracted digests differ from written ones:\n%+v\n%+v", files, res.Files)
			}
			compareTrees(t, goldenFixture, dest)
			checkExtractedModes(t, dest)
			checkSkillDigestsByHand(t, dest, SkillDigests(files))
		})
	}
}

// compareTrees asserts that dest holds src's files, bytes and exec bits.
func compareTrees(t *testing.T, src, dest string) {
	t.Helper()
	count := 0
	must(t, filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		want, _ := os.ReadFile(p)
		got, err := os.ReadFile(filepath.Join(dest, rel))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: extracted %q (%v), want %q", rel, got, err, want)
		}
		srcInfo, _ := d.Info()
		destInfo, err := os.Stat(filepath.Join(dest, rel))
		if err == nil && (srcInfo.Mode()&0o111 != 0) != (destInfo.Mode()&0o111 != 0) {
			t.Errorf("%s: exec bit %v, source %v", rel, destInfo.Mode(), srcInfo.Mode())
		}
		count++
		return nil
	}))
	if count == 0 {
		t.Fatal("source tree is empty")
	}
}

// checkSkillDigestsByHand recomputes each skill's digest from the files on
// disk following TreeDigest's documented form, without the package's code.
func checkSkillDigestsByHand(t *testing.T, dest string, got map[string]digest.Digest) {
	t.Helper()
	skills, err := os.ReadDir(dest)
	must(t, err)
	want := map[string]digest.Digest{}
	for _, s := range skills {
		if !s.IsDir() {
			continue
		}
		var lines []string
		root := filepath.Join(dest, s.Name())
		must(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			body, _ := os.ReadFile(p)
			fi, _ := d.Info()
			mode := "644"
			if fi.Mode()&0o111 != 0 {
				mode = "755"
			}
			rel, _ := filepath.Rel(root, p)
			sum := sha256.Sum256(body)
			lines = append(lines, mode+" "+hex.EncodeToString(sum[:])+" "+filepath.ToSlash(rel)+"\n")
			return nil
		}))
		sort.Slice(lines, func(i, j int) bool { return pathOf(lines[i]) < pathOf(lines[j]) })
		want[s.Name()] = digest.FromString(strings.Join(lines, ""))
	}
	if !mapsEqual(got, want) {
		t.Errorf("SkillDigests = %v, by hand %v", got, want)
	}
}

func pathOf(line string) string {
	return strings.SplitN(line, " ", 3)[2]
}

func TestTreeDigest(t *testing.T) {
	t.Parallel()
	a := FileDigest{Path: "b.md", Digest: digest.FromString("b")}
	b := FileDigest{Path: "a/x.sh", Executable: true, Digest: digest.FromString("x")}
	want := digest.FromString(
		"755 " + digest.FromString("x").Encoded() + " a/x.sh\n" +
			"644 " + digest.FromString("b").Encoded() + " b.md\n")
	if got := TreeDigest([]FileDigest{a, b}); got != want {
		t.Errorf("TreeDigest = %s, want %s", got, want)
	}
	if TreeDigest([]FileDigest{b, a}) != want {
		t.Error("TreeDigest depends on input order")
	}
	skills := SkillDigests([]FileDigest{{Path: "top.md"}, {Path: "s/b.md", Digest: a.Digest}, {Path: "s/a/x.sh", Executable: true, Digest: b.Digest}})
	if len(skills) != 1 || skills["s"] != want {
		t.Errorf("SkillDigests = %v, want only s: %s", skills, want)
	}
}

func TestExtractDestinationChecks(t *testing.T) {
	t.Parallel()
	_, data := writeLayer(t, goldenFixture)
	cases := map[string]func(t *testing.T, dest string){
		"not empty": func(t *testing.T, dest string) {
			// Refused upfront, not only when the rename would fail.
			must(t, os.Mkdir(dest, 0o755))
			must(t, os.WriteFile(filepath.Join(dest, "keep"), []byte("mine"), 0o644))
		},
		"a file": func(t *testing.T, dest string) {
			must(t, os.WriteFile(dest, []byte("mine"), 0o644))
		},
		"a symlink to an empty directory": func(t *testing.T, dest string) {
			must(t, os.Mkdir(dest+".real", 0o755))
			must(t, os.Symlink(dest+".real", dest))
		},
	}
	for name, setup := range cases {
		t.Run(name, func(t *testing.T) {
			parent := t.TempDir()
			dest := filepath.Join(parent, "dest")
			setup(t, dest)
			before := snapshot(t, parent)
			_, err := Extract(bytesReader(data), dest, ReadOptions{})
			if err == nil || !strings.Contains(err.Error(), "destination") {
				t.Fatalf("err = %v, want the destination refused", err)
			}
			if after := snapshot(t, parent); !slices.Equal(after, before) {
				t.Errorf("parent changed:\n%q\n%q", before, after)
			}
		})
	}
}

// snapshot lists a directory tree with contents, to detect any change.
func snapshot(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	must(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		body := ""
		if d.Type().IsRegular() {
			b, _ := os.ReadFile(p)
			body = string(b)
		}
		out = append(out, p+" "+d.Type().String()+" "+body)
		return nil
	}))
	return out
}

func TestWalkCallbackError(t *testing.T) {
	t.Parallel()
	_, data := writeLayer(t, goldenFixture)
	sentinel := errors.New("stop here")
	err := Walk(bytesReader(data), ReadOptions{}, func(Header, io.Reader) error { return sentinel })
	if !errors.Is(err, sentinel) {
		t.Errorf("err = %v, want the callback's error wrapped", err)
	}
}

// Content left unread by fn is still verified: the gzip checksum at the end
// of the stream covers it.
func TestWalkUnreadContentStillChecked(t *testing.T) {
	t.Parallel()
	data := rawArchive(t, file("s/a", strings.Repeat("x", 100)))
	err := Walk(bytesReader(flipByte(data, len(data)-6)), ReadOptions{}, func(Header, io.Reader) error { return nil })
	if !errors.Is(err, gzip.ErrChecksum) {
		t.Errorf("err = %v, want a checksum error", err)
	}
}

func TestWalkDigestOption(t *testing.T) {
	t.Parallel()
	data := rawArchive(t, file("s/a", "x"))
	cases := map[digest.Digest]bool{
		digest.FromBytes(data):                    true,
		digest.SHA512.FromBytes(data):             true,
		"sha256:not-hex":                          false,
		"md5:d41d8cd98f00b204e9800998ecf8427e":    false,
		digest.Digest("sha256:" + sha256Hex("x")): false,
	}
	for d, ok := range cases {
		err := Walk(bytesReader(data), ReadOptions{Digest: d}, func(Header, io.Reader) error { return nil })
		if (err == nil) != ok {
			t.Errorf("digest %s: err = %v, want ok = %v", d, err, ok)
		}
	}
}

// TestWalkAcceptsDotSlashNames reads a layer made the way `tar -C dir .`
// makes one: a "./" root entry and every name under "./". The names come
// out clean; a "./" anywhere but the front is still refused.
func TestWalkAcceptsDotSlashNames(t *testing.T) {
	t.Parallel()
	data := rawArchive(t,
		dir("./"),
		dir("./review/"),
		file("./review/SKILL.md", "---\nname: review\n---\n"),
	)
	var got []string
	err := Walk(bytesReader(data), ReadOptions{}, func(h Header, _ io.Reader) error {
		got = append(got, h.Path)
		return nil
	})
	must(t, err)
	if want := []string{"review", "review/SKILL.md"}; !slices.Equal(got, want) {
		t.Errorf("paths = %q, want %q", got, want)
	}
	for _, name := range []string{"review/./SKILL.md", "././review/SKILL.md"} {
		err := Walk(bytesReader(rawArchive(t, file(name, "x"))), ReadOptions{}, func(Header, io.Reader) error { return nil })
		var unsafe *UnsafeEntryError
		if !errors.As(err, &unsafe) {
			t.Errorf("%s: err = %v, want an unsafe entry", name, err)
		}
	}
}
