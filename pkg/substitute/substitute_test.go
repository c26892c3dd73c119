package substitute

import (
	"errors"
	"runtime"
	"strings"
	"testing"
)

func TestApply(t *testing.T) {
	all := Options{
		Arguments: []string{"123", "two words", "$ARGUMENTS[0]"},
		SkillDir:  "/skills/fix",
		Workspace: "/work",
	}
	tests := []struct {
		name string
		in   string
		opts Options
		want string
	}{
		// The variables.
		{"no variables", "plain text", all, "plain text"},
		{"arguments", "Fix $ARGUMENTS now", all, "Fix 123 two words $ARGUMENTS[0] now"},
		{"first positional", "issue $ARGUMENTS[0]", all, "issue 123"},
		{"positional with spaces", "[$ARGUMENTS[1]]", all, "[two words]"},
		{"missing positional is empty", "x$ARGUMENTS[3]y", all, "xy"},
		{"huge positional is empty", "x$ARGUMENTS[99999999999999999999999]y", all, "xy"},
		{"leading zeros", "$ARGUMENTS[01]", all, "two words"},
		{"no arguments", "<$ARGUMENTS>", Options{}, "<>"},
		{"skill dir", "${STAX_SKILL_DIR}/scripts/run.sh", all, "/skills/fix/scripts/run.sh"},
		{"workspace", "cd ${STAX_WORKSPACE}", all, "cd /work"},
		{"unknown paths stay", "${STAX_SKILL_DIR} ${STAX_WORKSPACE}", Options{}, "${STAX_SKILL_DIR} ${STAX_WORKSPACE}"},
		{"values are not rescanned", "$ARGUMENTS[2]", all, "$ARGUMENTS[0]"},
		{"at end of text", "$ARGUMENTS", all, "123 two words $ARGUMENTS[0]"},

		// Escapes.
		{"escaped arguments", `\$ARGUMENTS`, all, "$ARGUMENTS"},
		{"escaped positional", `\$ARGUMENTS[0]`, all, "$ARGUMENTS[0]"},
		{"escaped skill dir", `\${STAX_SKILL_DIR}`, all, "${STAX_SKILL_DIR}"},
		{"escaped workspace", `\${STAX_WORKSPACE}`, all, "${STAX_WORKSPACE}"},
		{"escape then variable", `\$ARGUMENTS $ARGUMENTS[0]`, all, "$ARGUMENTS 123"},
		{"double backslash", `\\$ARGUMENTS`, all, `\$ARGUMENTS`},
		{"backslash elsewhere is text", `a\nb \$HOME \`, all, `a\nb \$HOME \`},
		{"escaped non-variable keeps backslash", `\$ARGUMENTSX`, all, `\$ARGUMENTSX`},

		// Adjacent text.
		{"name continues", "$ARGUMENTSX", all, "$ARGUMENTSX"},
		{"underscore continues", "$ARGUMENTS_FILE", all, "$ARGUMENTS_FILE"},
		{"digit continues", "$ARGUMENTS2", all, "$ARGUMENTS2"},
		{"punctuation ends", "$ARGUMENTS.", all, "123 two words $ARGUMENTS[0]."},
		{"text after positional", "$ARGUMENTS[1]x", all, "two wordsx"},
		{"bracket without digits", "$ARGUMENTS[x]", all, "123 two words $ARGUMENTS[0][x]"},
		{"unclosed bracket", "$ARGUMENTS[1", all, "123 two words $ARGUMENTS[0][1"},
		{"empty brackets", "$ARGUMENTS[]", all, "123 two words $ARGUMENTS[0][]"},
		{"negative index", "$ARGUMENTS[-1]", all, "123 two words $ARGUMENTS[0][-1]"},
		{"two positionals", "$ARGUMENTS[0]$ARGUMENTS[1]", all, "123two words"},
		{"lowercase is not a variable", "$arguments", all, "$arguments"},
		{"unbraced path variable", "$STAX_SKILL_DIR", all, "$STAX_SKILL_DIR"},
		{"unterminated brace", "${STAX_SKILL_DIR", all, "${STAX_SKILL_DIR"},
		{"extra closing brace", "${STAX_SKILL_DIR}}", all, "/skills/fix}"},
		{"nested braces", "${${STAX_WORKSPACE}}", all, "${/work}"},
		{"double braces", "${{STAX_SKILL_DIR}}", all, "${{STAX_SKILL_DIR}}"},
		{"dollar dollar", "$$ARGUMENTS", all, "$123 two words $ARGUMENTS[0]"},
		{"shell is not evaluated", "$(rm -rf /) `id` ${HOME}", all, "$(rm -rf /) `id` ${HOME}"},
		{"multibyte around", "é$ARGUMENTS[0]日", all, "é123日"},

		// Install mode: paths only.
		{"keep arguments", "$ARGUMENTS $ARGUMENTS[1] ${STAX_SKILL_DIR}", keep(all), "$ARGUMENTS $ARGUMENTS[1] /skills/fix"},
		{"keep escaped arguments", `\$ARGUMENTS \$ARGUMENTS[0]`, keep(all), `\$ARGUMENTS \$ARGUMENTS[0]`},
		{"keep mode resolves path escapes", `\${STAX_WORKSPACE}`, keep(all), "${STAX_WORKSPACE}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Apply(tt.in, tt.opts); got != tt.want {
				t.Errorf("Apply(%q) = %q, want %q", tt.in, got, tt.want)
			}
			// ApplyLimit gives the same text at its exact size, and
			// refuses a byte less.
			limit := int64(len(tt.want))
			if got, err := ApplyLimit(tt.in, tt.opts, limit); got != tt.want || err != nil {
				t.Errorf("ApplyLimit(%q, %d) = %q, %v; want %q", tt.in, limit, got, err, tt.want)
			}
			var size *SizeError
			if _, err := ApplyLimit(tt.in, tt.opts, limit-1); !errors.As(err, &size) || size.Limit != limit-1 {
				t.Errorf("ApplyLimit(%q, %d) = %v, want a SizeError", tt.in, limit-1, err)
			}
		})
	}
}

func keep(o Options) Options {
	o.KeepArguments = true
	return o
}

// TestApplyLimitMeasuresFirst: a text that would grow past the limit is
// refused without the result being built. Not parallel: it counts the
// bytes the process allocates.
func TestApplyLimitMeasuresFirst(t *testing.T) {
	text := strings.Repeat("$ARGUMENTS ", 10000)
	opts := Options{Arguments: []string{strings.Repeat("a", 1<<10)}} // 10 MiB in all
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := ApplyLimit(text, opts, 1<<20)
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Fatal("ApplyLimit over the limit succeeded")
	}
	// The joined arguments and the error; nothing the size of the result.
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<10 {
		t.Errorf("refusing allocated %d bytes", n)
	}
}

// UsesPaths agrees with Apply: a text uses the paths exactly when
// substituting other paths gives another text.
func TestUsesPaths(t *testing.T) {
	t.Parallel()
	for _, text := range []string{
		"", "plain", "$", `\`, `\\`, "$ARGUMENTS $ARGUMENTS[0]", `\$ARGUMENTS`,
		"${STAX_SKILL_DIR}/run.sh", "in ${STAX_WORKSPACE}", `\${STAX_SKILL_DIR}`, `\${STAX_WORKSPACE} only`,
		`\\${STAX_SKILL_DIR}`, `$${STAX_SKILL_DIR}`, "${STAX_SKILL", `x\`, `$ARGUMENTS${STAX_WORKSPACE}`,
	} {
		here := Apply(text, Options{SkillDir: "/a/skill", Workspace: "/a"})
		there := Apply(text, Options{SkillDir: "/b/skill", Workspace: "/b"})
		if got, want := UsesPaths(text), here != there; got != want {
			t.Errorf("UsesPaths(%q) = %v, want %v", text, got, want)
		}
	}
}
