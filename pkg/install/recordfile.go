package install

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/internal/atomicfile"
	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/errdefs"
)

// A record lists every file of every skill it holds, so it grows with the
// files installed; an install reads and writes it one skill at a time, to
// keep its memory flat in the number of skills.

// scanRecord reads a record from r, checks every name in it against the
// name rule, and hands each skill to each in the order of the file. where
// names the file in messages.
//
// Every re-install reads the whole record, which grows with the files
// installed (13 MB for 10,500 skills): it is decoded with the JSON
// package Go's encoding/json/v2 comes from, which reads it in one pass
// where encoding/json scans each value twice and costs several times the
// CPU. It reads what encoding/json reads, as encoding/json does (names
// matched regardless of case, a repeated name taking the last value,
// invalid UTF-8 replaced): records stay what they were.
func scanRecord(r io.Reader, where string, each func(name string, s *InstalledSkill) error) error {
	dec := jsontext.NewDecoder(r, recordOptions)
	invalid := func(err error) error {
		return errdefs.Precondition(fmt.Errorf("%s: %w (stax cannot tell what it installed; remove the skills it installed and this file by hand)", where, err))
	}
	if err := expectDelim(dec, '{'); err != nil {
		return invalid(err)
	}
	seen := map[string]bool{}
	for dec.PeekKind() != '}' {
		key, err := dec.ReadToken()
		if err != nil {
			return invalid(err)
		}
		if key.Kind() != '"' || key.String() != "skills" {
			if err := dec.SkipValue(); err != nil {
				return invalid(err)
			}
			continue
		}
		switch dec.PeekKind() {
		case 'n':
			if _, err := dec.ReadToken(); err != nil {
				return invalid(err)
			}
			continue // "skills": null
		case '{':
		default:
			if _, err := dec.ReadToken(); err != nil {
				return invalid(err)
			}
			return invalid(fmt.Errorf("skills is not an object"))
		}
		if _, err := dec.ReadToken(); err != nil {
			return invalid(err)
		}
		for dec.PeekKind() != '}' {
			t, err := dec.ReadToken()
			if err != nil {
				return invalid(err)
			}
			name := t.String()
			var s InstalledSkill
			if err := jsonv2.UnmarshalDecode(dec, &s, recordOptions); err != nil {
				return invalid(err)
			}
			if err := layers.CheckName(name); err != nil {
				return errdefs.MarkLocal(fmt.Errorf("%s: %w; stax did not write this record and changed nothing: remove the entry, or the file", where, err))
			}
			if seen[name] {
				return errdefs.MarkLocal(fmt.Errorf("%s lists skill %s twice; stax did not write this record and changed nothing: remove an entry, or the file", where, name))
			}
			seen[name] = true
			if f, bad := firstBad(s.Files, func(f string) bool { return layers.CheckPath(f) != nil }); bad {
				return errdefs.MarkLocal(fmt.Errorf("%s: skill %s lists the file %q, which cannot be in a skill; stax changed nothing: remove the entry, or the file", where, name, f))
			}
			// A record written before the stat moved to its cache holds
			// it (see statCache).
			if k, bad := firstBad(s.Stat, badStatKey); bad {
				return errdefs.MarkLocal(fmt.Errorf("%s: skill %s lists the path %q, which cannot be in a skill; stax changed nothing: remove the entry, or the file", where, name, k))
			}
			if err := each(name, &s); err != nil {
				return err
			}
		}
		if err := expectDelim(dec, '}'); err != nil {
			return invalid(err)
		}
	}
	if err := expectDelim(dec, '}'); err != nil {
		return invalid(err)
	}
	return nil
}

// recordOptions read a record as encoding/json does.
var recordOptions = jsonv1.DefaultOptionsV1()

// firstBad is the first key of m, in sorted order, that bad says is.
func firstBad(m map[string]string, bad func(string) bool) (string, bool) {
	first, found := "", false
	for k := range m {
		if bad(k) && (!found || k < first) {
			first, found = k, true
		}
	}
	return first, found
}

func expectDelim(dec *jsontext.Decoder, want jsontext.Kind) error {
	t, err := dec.ReadToken()
	if err != nil {
		return err
	}
	if t.Kind() != want {
		return fmt.Errorf("found %v where %q was expected", t, want)
	}
	return nil
}

// filesKey identifies a skill's files as written: two skills with the
// same key hold the same paths, modes and contents.
func filesKey(files map[string]string) [sha256.Size]byte {
	h := sha256.New()
	for _, p := range slices.Sorted(maps.Keys(files)) {
		io.WriteString(h, p+"\x00"+files[p]+"\n")
	}
	return [sha256.Size]byte(h.Sum(nil))
}

// spool holds the entries of the record an install will write, each
// encoded as it appears in the record, in a file of the staging
// directory; only where each one lies is kept in memory. Entries are
// encoded and written on a goroutine of their own: the install adds one
// as each skill is staged, and encoding it there would take turns with
// writing the next skill's files.
type spool struct {
	f       *os.File
	size    int64
	entries map[string][2]int64 // name → offset and length
	// stats are where each entry's statEntry lies, for the stat cache:
	// the record itself holds no stat.
	stats map[string][2]int64
	// queue takes entries to the encoding goroutine, started by add and
	// stopped by flush; entries, size and err are only read once flush
	// has waited for it.
	queue   chan spoolEntry
	encoded chan struct{}
	err     error // the first error encoding or writing an entry
}

type spoolEntry struct {
	name string
	s    InstalledSkill
}

// spoolQueue bounds the entries waiting to be encoded.
const spoolQueue = 64

// spoolName is the spool's name in the staging directory: no skill can
// have it, names starting with a dot are refused.
const spoolName = ".record"

func newSpool(folder *os.Root, staging string) (*spool, error) {
	f, err := folder.OpenFile(filepath.Join(staging, spoolName), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	return &spool{f: f, entries: map[string][2]int64{}, stats: map[string][2]int64{}}, nil
}

// add records s as the entry of name, replacing one added before. s is
// encoded later: its maps must not change after. An error encoding it
// is reported by flush, and by every call after.
func (sp *spool) add(name string, s *InstalledSkill) error {
	if sp.queue == nil {
		if sp.err != nil {
			return sp.err
		}
		sp.queue, sp.encoded = make(chan spoolEntry, spoolQueue), make(chan struct{})
		go sp.encode(sp.queue, sp.encoded)
	}
	sp.queue <- spoolEntry{name: name, s: *s}
	return nil
}

func (sp *spool) encode(queue <-chan spoolEntry, encoded chan<- struct{}) {
	defer close(encoded)
	for e := range queue {
		if sp.err != nil {
			continue
		}
		stat := e.s.Stat
		e.s.Stat = nil
		at, err := sp.put(&e.s, "    ")
		if err != nil {
			sp.err = err
			continue
		}
		sp.entries[e.name] = at
		delete(sp.stats, e.name)
		if stat == nil {
			continue
		}
		key := filesKey(e.s.Files)
		if at, err = sp.put(&statEntry{Files: hex.EncodeToString(key[:]), Stat: stat}, ""); err != nil {
			sp.err = err
			continue
		}
		sp.stats[e.name] = at
	}
}

// put appends v, encoded, to the spool's file, and says where it lies.
func (sp *spool) put(v any, prefix string) ([2]int64, error) {
	var data []byte
	var err error
	if prefix == "" {
		data, err = json.Marshal(v)
	} else {
		data, err = json.MarshalIndent(v, prefix, "  ")
	}
	if err == nil {
		_, err = sp.f.WriteAt(data, sp.size)
	}
	if err != nil {
		return [2]int64{}, err
	}
	at := [2]int64{sp.size, int64(len(data))}
	sp.size += int64(len(data))
	return at, nil
}

// flush waits until every entry added is encoded and written.
func (sp *spool) flush() error {
	if sp.queue != nil {
		close(sp.queue)
		<-sp.encoded
		sp.queue, sp.encoded = nil, nil
	}
	return sp.err
}

func (sp *spool) len() int {
	sp.flush()
	return len(sp.entries)
}

func (sp *spool) has(name string) bool {
	sp.flush()
	_, ok := sp.entries[name]
	return ok
}

// writeTo writes the record: what json.MarshalIndent(record, "", "  ")
// and a newline give, skills in name order. Nothing for no skills.
func (sp *spool) writeTo(w io.Writer) error {
	if err := sp.flush(); err != nil {
		return err
	}
	if len(sp.entries) == 0 {
		return nil
	}
	return sp.writeEntries(w, "{\n  \"installedBy\": \"stax\",\n  \"skills\": {\n", sp.entries, "\n  }\n}\n")
}

// writeEntries writes head, the entries at their places in the spool as
// the members of an object, in name order, and tail.
func (sp *spool) writeEntries(w io.Writer, head string, entries map[string][2]int64, tail string) error {
	var buf bytes.Buffer
	buf.WriteString(head)
	for i, name := range slices.Sorted(maps.Keys(entries)) {
		if i > 0 {
			buf.WriteString(",\n")
		}
		key, err := json.Marshal(name)
		if err != nil {
			return err
		}
		buf.WriteString("    ")
		buf.Write(key)
		buf.WriteString(": ")
		at := entries[name]
		if _, err := io.Copy(&buf, io.NewSectionReader(sp.f, at[0], at[1])); err != nil {
			return err
		}
		if _, err := buf.WriteTo(w); err != nil {
			return err
		}
	}
	buf.WriteString(tail)
	_, err := buf.WriteTo(w)
	return err
}

// writeStat replaces the folder's stat cache at path with the stat of
// the spooled entries, in name order as the record is (see statCache);
// with none, the cache is removed. A cache that cannot be written is
// only slower: the next install reads the files again.
func (sp *spool) writeStat(path string) {
	if path == "" || sp.flush() != nil {
		return
	}
	if len(sp.stats) == 0 {
		os.Remove(path)
		return
	}
	err := atomicfile.Write(path, 0o600, func(w io.Writer) error {
		return sp.writeEntries(w, "{\"skills\": {\n", sp.stats, "\n}}\n")
	})
	if err != nil {
		os.Remove(path) // one left as it was would not hurt; none is lighter
	}
}

// digest is the digest of the record writeTo writes; "" for none.
func (sp *spool) digest() (digest.Digest, error) {
	if err := sp.flush(); err != nil {
		return "", err
	}
	if len(sp.entries) == 0 {
		return "", nil
	}
	h := sha256.New()
	if err := sp.writeTo(h); err != nil {
		return "", err
	}
	return digest.NewDigest(digest.SHA256, h), nil
}

// write replaces the folder's record with the spool's, atomically and
// durably; with no skills, the record is removed.
func (sp *spool) write(folder *os.Root) error {
	if err := sp.flush(); err != nil {
		return errdefs.MarkLocal(err)
	}
	if len(sp.entries) == 0 {
		if err := folder.Remove(RecordFile); err != nil && !errors.Is(err, os.ErrNotExist) {
			return errdefs.MarkLocal(err)
		}
		return nil
	}
	return errdefs.MarkLocal(atomicfile.WriteIn(folder, RecordFile, 0o644, sp.writeTo))
}

func (sp *spool) close() {
	if sp != nil && sp.f != nil {
		sp.flush()
		sp.f.Close()
	}
}

// fileDigest is the digest of the named file in folder.
func fileDigest(folder *os.Root, name string) (digest.Digest, error) {
	f, err := folder.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return digest.SHA256.FromReader(f)
}

// keepCopy copies what r reads into the new file to in folder, durably,
// and returns its digest: the copy a rollback puts back.
func keepCopy(folder *os.Root, to string, r io.Reader) (digest.Digest, error) {
	out, err := folder.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", err
	}
	h := digest.SHA256.Digester()
	_, err = io.Copy(io.MultiWriter(out, h.Hash()), r)
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return h.Digest(), err
}
