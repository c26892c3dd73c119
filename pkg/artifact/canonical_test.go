package artifact

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"testing"

	"github.com/opencontainers/go-digest"
)

// genericCanonical is how Canonical encoded before it rewrote the encoded
// form in one pass: through generic values, whose maps encoding/json
// writes sorted. Every digest of a config depends on it staying the same.
func genericCanonical(t *testing.T, v any) []byte {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var generic any
	if err := dec.Decode(&generic); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(generic); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(out.Bytes(), []byte("\n"))
}

func TestCanonicalMatchesGenericEncoding(t *testing.T) {
	cfg := &Config{
		SpecVersion: SpecVersion, Kind: KindPackage, Name: "acme", Version: "1.0.0",
		Description: "Tools <for> \"teams\" & friends\u2028\u2029 \x01 tab\t é 😀 \xff",
		Tags:        []string{"a", "<b>", ""},
		Adapter:     map[string]any{"z": 1.5, "a": []any{true, false, nil, map[string]any{}}, "m": map[string]any{"b\"k": "v", "a<k": []any{}}, "n": -12e3},
		Skills: []SkillRecord{
			{Name: "b", Description: "x\\y", Path: "b", Digest: digest.FromString("b")},
			{Name: "a", Description: "", Version: "1.0", Path: "a", Digest: digest.FromString("a")},
		},
		Packages: []PackageRef{{Digest: digest.FromString("p"), Kind: "package", Ref: "r/p:1"}},
	}
	for _, v := range []any{cfg, &Config{}, PackagesLayer{SpecVersion: SpecVersion}, map[string]any{"": "", "b": map[string]any{"c": []any{1, "2", []any{}}}},
		[]any{}, "just a string", 42, nil, json.RawMessage(`{"b" : [1, {"y":2, "x" :"\u003c"}], "a":null}`)} {
		got, err := Canonical(v)
		if err != nil {
			t.Fatalf("Canonical(%v): %v", v, err)
		}
		if want := genericCanonical(t, v); !bytes.Equal(got, want) {
			t.Errorf("Canonical(%T):\n got %s\nwant %s", v, got, want)
		}
	}
	for _, c := range []*Config{cfg, {}, {Skills: cfg.Skills[:1]}, {Adapter: map[string]any{"skills": []any{}, "x": "\"skills\":[]"}}} {
		got, err := c.MarshalCanonical()
		if err != nil {
			t.Fatal(err)
		}
		if want := genericCanonical(t, c); !bytes.Equal(got, want) {
			t.Errorf("MarshalCanonical:\n got %s\nwant %s", got, want)
		}
	}
}

// A config is encoded in little more memory than it takes (about 2.5
// times, 3.6 under the race detector):
// through generic values, a config of thousands of skills took twelve
// times its size, much of it live at once at the end of a pack.
func TestConfigEncodingAllocatesLittle(t *testing.T) {
	cfg := &Config{SpecVersion: SpecVersion, Kind: KindPackage, Name: "big", Version: "1.0.0"}
	for i := range 3000 {
		name := fmt.Sprintf("skill-%05d", i)
		cfg.Skills = append(cfg.Skills, SkillRecord{Name: name, Path: name, Digest: digest.FromString(name),
			Description: "Generated skill for the allocation test. Use when measuring how stax encodes a large config."})
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	out, err := cfg.MarshalCanonical()
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if ratio := float64(after.TotalAlloc-before.TotalAlloc) / float64(len(out)); ratio > 6 {
		t.Errorf("MarshalCanonical allocated %.1f times the %d bytes it wrote, want at most 6", ratio, len(out))
	}
}
