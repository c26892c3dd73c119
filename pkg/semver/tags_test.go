package semver

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stax-dev/stax/pkg/errdefs"
)

// published is a repository's tags as registries list them: by name, so
// 1.10.0 before 1.9.0, with a v-prefixed release, a pre-release, latest,
// a tag that is only part of a version and cosign's digest-like tags.
var published = []string{
	"1.0.0", "1.10.0", "1.2", "1.9.0", "2.0.0-rc.1", "latest",
	"sha256-9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08.sig",
	"v1.2.0", "v1.9.1-beta.1",
}

func TestHighest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		tags   []string
		rng    string // "" for no range
		want   string
		wantOK bool
	}{
		{name: "no range: highest release, numerically", tags: published, want: "1.10.0", wantOK: true},
		{name: "caret", tags: published, rng: "^1.2.0", want: "1.10.0", wantOK: true},
		{name: "tilde keeps the minor", tags: published, rng: "~1.9.0", want: "1.9.0", wantOK: true},
		{name: "v prefix accepted", tags: published, rng: "~1.2", want: "v1.2.0", wantOK: true},
		{name: "x range", tags: published, rng: "1.x", want: "1.10.0", wantOK: true},
		{name: "comparators", tags: published, rng: ">=1.0.0 <1.9.0", want: "v1.2.0", wantOK: true},
		{name: "hyphen range", tags: published, rng: "1.0.0 - 1.9.0", want: "1.9.0", wantOK: true},
		{name: "alternatives", tags: published, rng: "~1.0.0 || ~1.2.0", want: "v1.2.0", wantOK: true},
		{name: "pre-release only when the range names one", tags: published, rng: ">=2.0.0-rc.0", want: "2.0.0-rc.1", wantOK: true},
		{name: "no pre-release for a release range", tags: published, rng: "^2.0.0", wantOK: false},
		{name: "pre-release of a lower version needs naming too", tags: published, rng: "~1.9.0", want: "1.9.0", wantOK: true},
		{name: "nothing in range", tags: published, rng: "^3.0.0", wantOK: false},
		{name: "only tags that are not versions", tags: []string{"latest", "main", "sha256-abc.sig", "1.2"}, wantOK: false},
		{name: "no tags", wantOK: false},
		{name: "same version with and without v", tags: []string{"v1.0.0", "1.0.0"}, want: "1.0.0", wantOK: true},
		{name: "only pre-releases and no range", tags: []string{"2.0.0-rc.1"}, wantOK: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var r *Range
			if tt.rng != "" {
				var err error
				if r, err = ParseRange(tt.rng); err != nil {
					t.Fatal(err)
				}
			}
			got, ok := Highest(tt.tags, r)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("Highest(%q) = %q, %v; want %q, %v", tt.rng, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestParseRangeRefusesWhatIsNotARange(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"", "  ", "latest", "^^1", ">=1.0.0 <", "1.0.0 -", "sha256-abc.sig", strings.Repeat("1", 600)} {
		_, err := ParseRange(bad)
		if err == nil {
			t.Errorf("ParseRange(%q) accepted", bad)
			continue
		}
		if errdefs.Of(err) != errdefs.InvalidArgument {
			t.Errorf("ParseRange(%q): %v is not a usage error", bad, err)
		}
		if !strings.Contains(err.Error(), "^1.2.0") {
			t.Errorf("ParseRange(%q) = %v: the message shows no example", bad, err)
		}
	}
}

func TestParseTag(t *testing.T) {
	t.Parallel()
	tests := []struct {
		tag    string
		want   string
		wantOK bool
	}{
		{"1.2.0", "1.2.0", true},
		{"v1.2.0", "1.2.0", true},
		{"2.0.0-rc.1", "2.0.0-rc.1", true},
		{"latest", "", false},
		{"1.2", "", false},
		{"V1.2.0", "", false},
		{"vv1.2.0", "", false},
		{"sha256-9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08.sig", "", false},
	}
	for _, tt := range tests {
		v, ok := ParseTag(tt.tag)
		if ok != tt.wantOK || (ok && v.String() != tt.want) {
			t.Errorf("ParseTag(%q) = %s, %v; want %s, %v", tt.tag, v, ok, tt.want, tt.wantOK)
		}
	}
}

func TestSortTags(t *testing.T) {
	t.Parallel()
	tags := slices.Clone(published)
	SortTags(tags)
	want := []string{
		"2.0.0-rc.1", "1.10.0", "v1.9.1-beta.1", "1.9.0", "v1.2.0", "1.0.0",
		"1.2", "latest", "sha256-9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08.sig",
	}
	if !slices.Equal(tags, want) {
		t.Errorf("SortTags =\n%q\nwant\n%q", tags, want)
	}
}

// SortTags reads each tag once, not at each comparison, so its
// allocations grow with the number of tags and not with the comparisons
// of the sort (n log n of them): a repository can list a million tags,
// which stax tags sorts. It does not run in parallel: AllocsPerRun counts
// the allocations of the whole process.
func TestSortTagsReadsEachTagOnce(t *testing.T) {
	tags := make([]string, 10_000)
	for i := range tags {
		tags[i] = fmt.Sprintf("%d.%d.%d", i%7, i%97, i)
	}
	tags[0], tags[1] = "latest", "v1.0.0-rc.1"
	sorted := slices.Clone(tags)
	allocs := testing.AllocsPerRun(2, func() {
		copy(sorted, tags)
		SortTags(sorted)
	})
	if perTag := allocs / float64(len(tags)); perTag > 10 {
		t.Errorf("SortTags of %d tags: %.1f allocations a tag, want at most 10: a tag read at each comparison?", len(tags), perTag)
	}
}
