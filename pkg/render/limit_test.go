package render

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/stax-dev/stax/pkg/skill"
	"github.com/stax-dev/stax/pkg/stateful"
	"github.com/stax-dev/stax/pkg/substitute"
)

// amplified is a skill whose body repeats $ARGUMENTS n times: a small file
// that substitution multiplies by the length of the arguments.
func amplified(n int) Skill {
	body := strings.Repeat("$ARGUMENTS\n", n)
	return Skill{Name: "amp", SkillMD: []byte("---\nname: amp\ndescription: d\n---\n" + body)}
}

// TestRenderRefusesOutputOverMaxSize: the cap is on the text after
// substitution, and applies before the text is built, budget or not.
// Not parallel: it counts the bytes the process allocates.
func TestRenderRefusesOutputOverMaxSize(t *testing.T) {
	const repeats = 1000
	arg := strings.Repeat("a", MaxSize/repeats+1) // just over the cap in all
	for _, budget := range []Budget{{}, {Tokens: 100}} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err := Render(amplified(repeats), Options{Budget: budget, Substitute: substitute.Options{Arguments: []string{arg}}})
		runtime.ReadMemStats(&after)
		var tooLarge *TooLargeError
		if !errors.As(err, &tooLarge) || tooLarge.Limit != MaxSize || !strings.Contains(err.Error(), "amp") {
			t.Fatalf("budget %v: Render = %v, want a TooLargeError naming the skill and the limit", budget, err)
		}
		// The skill and the argument are 45 KiB; building the text would
		// take MaxSize and more.
		if n := after.TotalAlloc - before.TotalAlloc; n > MaxSize/8 {
			t.Errorf("budget %v: refusing allocated %d bytes; the size must be known before the text is built", budget, n)
		}
	}

	// At the cap, it renders.
	arg = strings.Repeat("a", MaxSize/repeats-1)
	res, err := Render(amplified(repeats), Options{Substitute: substitute.Options{Arguments: []string{arg}}})
	if err != nil || res.Bytes > MaxSize || res.Bytes < MaxSize-2*repeats {
		t.Fatalf("Render under the cap = %v bytes, %v", res, err)
	}
}

// TestRenderCapCountsEveryFile: the cap is on the text of all the files
// together, not on each.
func TestRenderCapCountsEveryFile(t *testing.T) {
	t.Parallel()
	quarter := strings.Repeat("$ARGUMENTS\n", 100)
	s := amplified(100)
	s.Siblings = map[string][]byte{
		stateful.CalibrationFile: []byte(quarter),
		stateful.ExamplesFile:    []byte(quarter),
		stateful.MemoryFile:      []byte("# Memory\n\n" + quarter),
	}
	arg := strings.Repeat("a", MaxSize/400+1)
	var tooLarge *TooLargeError
	if _, err := Render(s, Options{Substitute: substitute.Options{Arguments: []string{arg}}}); !errors.As(err, &tooLarge) {
		t.Fatalf("Render = %v, want a TooLargeError", err)
	}
}

func TestMaxSizeHoldsEveryFile(t *testing.T) {
	t.Parallel()
	if files := int64(skill.MaxFileSize) + int64(len(stateful.Files))*stateful.MaxFileSize; MaxSize < files {
		t.Errorf("MaxSize = %d, less than a SKILL.md and the stateful files at their limits (%d)", MaxSize, files)
	}
}
