package install

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/errdefs"
)

// scanRecordV1 is scanRecord as stax had it, with encoding/json: the
// baseline of BenchmarkScanRecord and what records must read as.
func scanRecordV1(r io.Reader, where string, each func(name string, s *InstalledSkill) error) error {
	dec := json.NewDecoder(r)
	invalid := func(err error) error {
		return errdefs.Precondition(fmt.Errorf("%s: %w (stax cannot tell what it installed; remove the skills it installed and this file by hand)", where, err))
	}
	if err := expectDelimV1(dec, '{'); err != nil {
		return invalid(err)
	}
	seen := map[string]bool{}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return invalid(err)
		}
		if key != "skills" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return invalid(err)
			}
			continue
		}
		if t, err := dec.Token(); err != nil {
			return invalid(err)
		} else if t == nil {
			continue // "skills": null
		} else if t != json.Delim('{') {
			return invalid(fmt.Errorf("skills is not an object"))
		}
		for dec.More() {
			t, err := dec.Token()
			if err != nil {
				return invalid(err)
			}
			name, _ := t.(string)
			var s InstalledSkill
			if err := dec.Decode(&s); err != nil {
				return invalid(err)
			}
			if err := layers.CheckName(name); err != nil {
				return errdefs.MarkLocal(fmt.Errorf("%s: %w; stax did not write this record and changed nothing: remove the entry, or the file", where, err))
			}
			if seen[name] {
				return errdefs.MarkLocal(fmt.Errorf("%s lists skill %s twice; stax did not write this record and changed nothing: remove an entry, or the file", where, name))
			}
			seen[name] = true
			for _, f := range slices.Sorted(maps.Keys(s.Files)) {
				if layers.CheckPath(f) != nil {
					return errdefs.MarkLocal(fmt.Errorf("%s: skill %s lists the file %q, which cannot be in a skill; stax changed nothing: remove the entry, or the file", where, name, f))
				}
			}
			// Stat keys are files, and directories with a slash ("./" the
			// skill's own): a re-install opens the directories by them.
			for _, k := range slices.Sorted(maps.Keys(s.Stat)) {
				if p := strings.TrimSuffix(k, "/"); k != "./" && layers.CheckPath(p) != nil {
					return errdefs.MarkLocal(fmt.Errorf("%s: skill %s lists the path %q, which cannot be in a skill; stax changed nothing: remove the entry, or the file", where, name, k))
				}
			}
			if err := each(name, &s); err != nil {
				return err
			}
		}
		if err := expectDelimV1(dec, '}'); err != nil {
			return invalid(err)
		}
	}
	if err := expectDelimV1(dec, '}'); err != nil {
		return invalid(err)
	}
	return nil
}

func expectDelimV1(dec *json.Decoder, want json.Delim) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if t != want {
		return fmt.Errorf("found %v where %q was expected", t, want)
	}
	return nil
}

// decodeRecordV1 is what reading a record with encoding/json gives: the
// entries of the record in file order, or an error.
func decodeRecordV1(data []byte) ([]string, []InstalledSkill, error) {
	var names []string
	var skills []InstalledSkill
	err := scanRecordV1(bytes.NewReader(data), "record", func(name string, s *InstalledSkill) error {
		names, skills = append(names, name), append(skills, *s)
		return nil
	})
	return names, skills, err
}

func decodeRecord(data []byte) ([]string, []InstalledSkill, error) {
	var names []string
	var skills []InstalledSkill
	err := scanRecord(bytes.NewReader(data), "record", func(name string, s *InstalledSkill) error {
		names, skills = append(names, name), append(skills, *s)
		return nil
	})
	return names, skills, err
}

// A record is read as encoding/json reads it, however it was written:
// records written by hand or by other tools mean what they meant.
func TestRecordIsReadAsEncodingJSONReadsIt(t *testing.T) {
	d := digest.FromString("x").String()
	records := []string{
		`{"installedBy":"stax","skills":{"a":{"package":"p","packageDigest":"` + d + `","digest":"` + d + `","files":{"SKILL.md":"644 ` + d + `"},"stat":{"SKILL.md":"1 2","./":"3 4"},"vars":"v"}}}`,
		// Names matched regardless of case; unknown ones ignored.
		`{"skills":{"a":{"PACKAGE":"p","Files":{"SKILL.md":"x"},"other":[1,{"b":null}],"Digest":"` + d + `"}},"extra":{"skills":1}}`,
		// A repeated name: the last value, maps merged.
		`{"skills":{"a":{"package":"one","package":"two","files":{"x":"1"},"files":{"y":"2"}}}}`,
		// Invalid UTF-8, escapes, null.
		"{\"skills\":{\"a\":{\"package\":\"\xff\\u00e9\\n\",\"files\":null,\"stat\":{}}},\"skills\":null}",
		`{"skills":null}`,
		`{}`,
		"  {\n\"skills\" : { } }\n",
	}
	for _, r := range records {
		wantNames, want, wantErr := decodeRecordV1([]byte(r))
		gotNames, got, err := decodeRecord([]byte(r))
		if (err != nil) != (wantErr != nil) || !reflect.DeepEqual(gotNames, wantNames) || !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\nread %q %+v (%v)\nencoding/json reads %q %+v (%v)", r, gotNames, got, err, wantNames, want, wantErr)
		}
	}
	for _, r := range []string{
		``, `[]`, `{"skills":[]}`, `{"skills":{"a":5}}`, `{"skills":{"a":{"files":{"x":1}}}}`, `{"skills":{"a":{}}`,
		`{"skills":{"a":{"package":"p"}},}`, `{"skills":{"a":{"package":"p",}}}`, "{\"skills\":{\"a\":{\"package\":\"\x01\"}}}",
	} {
		_, _, wantErr := decodeRecordV1([]byte(r))
		if _, _, err := decodeRecord([]byte(r)); err == nil || wantErr == nil {
			t.Errorf("%q: read with %v, encoding/json with %v: want both refused", r, err, wantErr)
		}
	}
}

// largeRecord is the record of an install of n skills of four files each,
// as stax writes it.
func largeRecord(t testing.TB, n int) []byte {
	r := &Record{InstalledBy: "stax", Skills: map[string]InstalledSkill{}}
	for i := range n {
		s := InstalledSkill{Package: "oci:/work/layouts/p7:1.0.0", PackageDigest: digest.FromString("p7"), Digest: digest.FromString(fmt.Sprint(i)),
			Files: map[string]string{}, Stat: map[string]string{"./": "4096 1763900000123456789"}, Vars: digest.FromString(fmt.Sprint("vars", i)).String()}
		for _, f := range []string{"SKILL.md", "references/guide.md", "scripts/run.sh", "assets/template.txt"} {
			s.Files[f] = "644 " + digest.FromString(f+fmt.Sprint(i)).String()
			s.Stat[f] = "17834 1763900000123456789"
		}
		s.Stat["references/"], s.Stat["scripts/"], s.Stat["assets/"] = "4096 1763900000123456789", "4096 1763900000123456789", "4096 1763900000123456789"
		r.Skills[fmt.Sprintf("skill-%05d", i)] = s
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// BenchmarkScanRecord reads the record of an install of 10,500 skills (13
// MB), what every re-install does first, and, in alternation, reads it
// with encoding/json as stax did before; ratio is the CPU time of the
// first over the second.
func BenchmarkScanRecord(b *testing.B) {
	data := largeRecord(b, 10500)
	b.SetBytes(int64(len(data)))
	var ours, before time.Duration
	for b.Loop() {
		start := time.Now()
		if err := scanRecord(bytes.NewReader(data), "record", func(string, *InstalledSkill) error { return nil }); err != nil {
			b.Fatal(err)
		}
		ours += time.Since(start)
		start = time.Now()
		if err := scanRecordV1(bytes.NewReader(data), "record", func(string, *InstalledSkill) error { return nil }); err != nil {
			b.Fatal(err)
		}
		before += time.Since(start)
	}
	b.ReportMetric(float64(ours)/float64(before), "ratio")
}
