package install

import (
	"encoding/hex"
	"os"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/stax-dev/stax/layers"
)

// The stat of the files an install wrote (InstalledSkill.Stat) is what
// lets a re-install take a file as recorded without reading it. It is
// this machine's: the size and modification time of this checkout's
// files. The record is committed with the folder, so the stat is kept
// out of it, in a cache in Options.LockDir named after the folder's
// absolute path like its lock and journal. Losing the cache costs one
// re-install reading every file again; it never changes what an install
// does.

// statCacheSuffix ends the name of a folder's stat cache in the lock
// directory, after the key lockFolder names the folder's lock by.
const statCacheSuffix = ".stat.json"

// statCachePath is the stat cache of the folder whose journal is at
// journal (see lockFolder).
func statCachePath(journal string) string {
	return strings.TrimSuffix(journal, journalSuffix) + statCacheSuffix
}

// statEntry is one skill's entry in the stat cache. Files is the hex
// filesKey of the record's files the stat was taken of: the stat says a
// file is as it was hashed then, which holds for the record only while
// it still lists those files (a record from another checkout does not).
type statEntry struct {
	Files string            `json:"files"`
	Stat  map[string]string `json:"stat"`
}

// statCache reads a folder's stat cache alongside its record. Both are
// written with skills in name order, so one pass over each suffices: the
// cache is never held in memory whole. A record in another order (edited
// by hand) only misses entries, and its files are read.
type statCache struct {
	f    *os.File
	dec  *jsontext.Decoder
	next string // the name of the entry the decoder is at; "" at the end
}

// openStatCache opens the stat cache at path; nil when there is none or
// it cannot be read, which is only slower.
func openStatCache(path string) *statCache {
	if path == "" {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	c := &statCache{f: f, dec: jsontext.NewDecoder(f, recordOptions)}
	if !c.enter() {
		c.close()
		return nil
	}
	return c
}

// enter positions the decoder at the first entry of "skills".
func (c *statCache) enter() bool {
	if expectDelim(c.dec, '{') != nil {
		return false
	}
	for c.dec.PeekKind() == '"' {
		key, err := c.dec.ReadToken()
		if err != nil {
			return false
		}
		if key.String() == "skills" && c.dec.PeekKind() == '{' {
			if _, err := c.dec.ReadToken(); err != nil {
				return false
			}
			return c.advance()
		}
		if c.dec.SkipValue() != nil {
			return false
		}
	}
	return false
}

// advance reads the name of the next entry; false at the end or on an
// error, after which the cache has nothing more.
func (c *statCache) advance() bool {
	c.next = ""
	if c.dec.PeekKind() != '"' {
		return false
	}
	t, err := c.dec.ReadToken()
	if err != nil || t.String() == "" {
		return false
	}
	c.next = t.String()
	return true
}

// lookup is the stat of the skill name whose record lists files, when the
// cache holds one taken of those very files; nil otherwise. Names must be
// asked in increasing order.
func (c *statCache) lookup(name string, files map[string]string) map[string]string {
	if c == nil {
		return nil
	}
	for c.next != "" && c.next < name {
		if c.dec.SkipValue() != nil || !c.advance() {
			return nil
		}
	}
	if c.next != name {
		return nil
	}
	var e statEntry
	err := jsonv2.UnmarshalDecode(c.dec, &e, recordOptions)
	c.advance()
	if err != nil || !validStat(e.Stat) {
		return nil
	}
	key := filesKey(files)
	if e.Files != hex.EncodeToString(key[:]) {
		return nil
	}
	return e.Stat
}

func (c *statCache) close() {
	if c != nil {
		c.f.Close()
	}
}

// validStat says whether every key of stat is a path in a skill, or one
// with a slash for a directory ("./" the skill's own): a re-install opens
// the directories by them.
func validStat(stat map[string]string) bool {
	_, bad := firstBad(stat, badStatKey)
	return !bad
}

func badStatKey(k string) bool {
	return k != "./" && layers.CheckPath(strings.TrimSuffix(k, "/")) != nil
}
