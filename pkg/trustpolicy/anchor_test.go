package trustpolicy

import (
	"regexp"
	"strings"
	"testing"
)

func TestUnanchoredNamesWhatElseAPatternAccepts(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		re string
		// says are in the warning, in order; none for no warning.
		says []string
	}{
		{`^https://github\.com/acme/skills/\.github/workflows/release\.yml@refs/tags/.*$`, nil},
		{`\A.*@acme\.example\z`, nil},
		{`^(?:a@acme\.example|b@acme\.example)$`, nil},
		{`^a@acme\.example$|^b@acme\.example$`, nil},
		{`.*@acme.example`, []string{"`.*@acme.example` is not anchored", "accepts `evil@acme.example.attacker.com`", "write `^.*@acme\\.example$`"}},
		{`.*@acme.example.com`, []string{"write `^.*@acme\\.example\\.com$`"}},
		{`^https://github.com/acme/.+[.]yml@refs/tags/v1.`, []string{"write `^https://github\\.com/acme/.+[.]yml@refs/tags/v1.$`"}},
		{`^https://github\.com/acme/`, []string{"accepts `https://github.com/acme/evil`", "write `^https://github\\.com/acme/$`"}},
		{`acme@example\.com$`, []string{"accepts `evilacme@example.com`", "write `^acme@example\\.com$`"}},
		{`a@acme\.example|b@acme\.example`, []string{"write `^(?:a@acme\\.example|b@acme\\.example)$`"}},
		{`^[a-z]+@acme\.example(?m)$`, []string{"is not anchored", "write `^(?:^[a-z]+@acme\\.example(?m)$)$`"}},
		{"\x1b]0;title\x07.*@acme", []string{`"\x1b]0;title\a.*@acme"`}},
	} {
		got := Identity{SubjectRegExp: c.re, Issuer: "https://issuer.example"}.Unanchored()
		if c.says == nil {
			if len(got) != 0 {
				t.Errorf("%s: %q, want no warning", c.re, got)
			}
			continue
		}
		if len(got) != 1 {
			t.Errorf("%s: %q, want one warning", c.re, got)
			continue
		}
		rest := got[0]
		for _, s := range c.says {
			i := strings.Index(rest, s)
			if i < 0 {
				t.Errorf("%s: %q does not say %q", c.re, got[0], s)
				break
			}
			rest = rest[i+len(s):]
		}
		if strings.ContainsAny(got[0], "\x1b\x07\n") {
			t.Errorf("%s: the warning %q holds control characters", c.re, got[0])
		}
	}
}

// The example a warning names is one the pattern accepts, as cosign and
// stax match it.
func TestUnanchoredExampleMatches(t *testing.T) {
	t.Parallel()
	for _, re := range []string{`.*@acme.example`, `^https://github\.com/acme/`, `acme@example\.com$`, `[^@]+@acme\.example`, `(a|bc){2,3}@x`, `a|b`, `^x(?i)Y`} {
		parsed := Identity{IssuerRegExp: re, Subject: "x"}.Unanchored()
		if len(parsed) != 1 || !strings.HasPrefix(parsed[0], "the OIDC issuer pattern") {
			t.Fatalf("%s: %q", re, parsed)
		}
		_, after, ok := strings.Cut(parsed[0], "accepts `")
		if !ok {
			t.Errorf("%s: %q names no example", re, parsed[0])
			continue
		}
		example, _, _ := strings.Cut(after, "`")
		if !regexp.MustCompile(re).MatchString(example) {
			t.Errorf("%s does not accept its example %q", re, example)
		}
		// The pattern it suggests is anchored, and accepts no more.
		_, suggested, _ := strings.Cut(parsed[0], "write `")
		suggested = strings.TrimSuffix(suggested, "`")
		if w := (Identity{IssuerRegExp: suggested, Subject: "x"}).Unanchored(); len(w) != 0 {
			t.Errorf("%s: the suggested %s is not anchored: %q", re, suggested, w)
		}
		if regexp.MustCompile(suggested).MatchString(example) {
			t.Errorf("%s: the suggested %s accepts %q", re, suggested, example)
		}
	}
}

// The anchored pattern a warning suggests writes the dots of a host name
// escaped: `^.*@acme.example.com$` would still accept
// evil@acme-example.com.
func TestSuggestedPatternEscapesHostDots(t *testing.T) {
	t.Parallel()
	w := Identity{SubjectRegExp: `.*@acme.example.com`, Issuer: "https://issuer.example"}.Unanchored()
	if len(w) != 1 {
		t.Fatalf("%q, want one warning", w)
	}
	_, suggested, _ := strings.Cut(w[0], "write `")
	suggested = strings.TrimSuffix(suggested, "`")
	re := regexp.MustCompile(suggested)
	if !re.MatchString("dev@acme.example.com") || re.MatchString("evil@acme-example.com") {
		t.Errorf("the suggested %s: accepts dev@acme.example.com %v, evil@acme-example.com %v; want only the first", suggested, re.MatchString("dev@acme.example.com"), re.MatchString("evil@acme-example.com"))
	}
}
