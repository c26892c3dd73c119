package proposal

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/pkg/errdefs"
)

func TestApplyFileSaysWhetherItWrote(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		dryRun  bool
		applied bool
	}{
		{"revise.json", false, true},
		{"revise.json", true, false},
		{"noop.json", false, false},
	} {
		out, err := ApplyFile(filepath.Join(fixtures, tc.name), nil, Options{SkillsDir: skillsCopy(t), DryRun: tc.dryRun})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if out.Applied != tc.applied {
			t.Errorf("%s, dry run %v: applied %v, want %v", tc.name, tc.dryRun, out.Applied, tc.applied)
		}
	}
}

// A proposal rejected for its format, before there is anything to apply,
// still has an outcome: the rule it broke.
func TestApplyFileRejectedHasTheRules(t *testing.T) {
	t.Parallel()
	out, err := ApplyFile("-", strings.NewReader(`{"summary": "x"`), Options{SkillsDir: skillsCopy(t)})
	if !errors.Is(err, ErrRejected) || errdefs.Of(err) != errdefs.InvalidArgument {
		t.Fatalf("err = %v (%s): want a rejection, an invalid argument", err, errdefs.Of(err))
	}
	if out == nil || out.Applied || len(out.Rules) != 1 || out.Rules[0].Rule != RuleFormat || out.Skills == nil || out.Warnings == nil {
		t.Errorf("outcome %+v: want the format rule alone, and empty lists", out)
	}
}

func TestApplyFileMissingIsLocal(t *testing.T) {
	t.Parallel()
	out, err := ApplyFile(filepath.Join(t.TempDir(), "missing.json"), nil, Options{SkillsDir: skillsCopy(t)})
	if out != nil || errdefs.Of(err) != errdefs.Local {
		t.Errorf("outcome %v, err %v (%s): want no outcome and a local error", out, err, errdefs.Of(err))
	}
}
