package skill

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// denseFrontmatter is frontmatter of about size bytes written as densely
// as YAML allows: a flow mapping of one-character keys without values,
// two nodes for every two bytes.
func denseFrontmatter(size int) string {
	var b strings.Builder
	b.WriteString("name: dense\ndescription: Dense frontmatter.\nmetadata: {")
	for i := 0; b.Len()+4 <= size; i++ {
		fmt.Fprintf(&b, "%x,", i%16)
	}
	b.WriteString("}\n")
	return b.String()
}

func wantTooLarge(t *testing.T, data string, line int) {
	t.Helper()
	_, err := Parse([]byte(data))
	var pe *ParseError
	if !errors.Is(err, ErrTooLarge) || !errors.As(err, &pe) {
		t.Fatalf("Parse = %v, want a ParseError wrapping ErrTooLarge", err)
	}
	if pe.Line != line {
		t.Errorf("line = %d, want %d (%v)", pe.Line, line, err)
	}
}

func TestParseRefusesSkillMDOverLimit(t *testing.T) {
	t.Parallel()
	head := "---\nname: big\ndescription: A big skill.\n---\n"
	at := head + strings.Repeat("x", MaxFileSize-len(head))
	if _, err := Parse([]byte(at)); err != nil {
		t.Fatalf("a SKILL.md of exactly %d bytes: %v", MaxFileSize, err)
	}
	wantTooLarge(t, at+"x", 0)
	if _, err := Parse([]byte(at + "x")); !strings.Contains(err.Error(), "8.0 MiB") {
		t.Errorf("message does not name the limit: %v", err)
	}
}

func TestParseRefusesFrontmatterOverLimit(t *testing.T) {
	t.Parallel()
	// Lines of 256 bytes, one key each (well under the node limit), to
	// just under the size limit.
	lines := func(n int) string {
		var b strings.Builder
		b.WriteString("name: wide\ndescription: Wide frontmatter.\nmetadata:\n")
		for b.Len()+256 <= n {
			fmt.Fprintf(&b, "  k%05d: %s\n", b.Len(), strings.Repeat("v", 256-12))
		}
		return b.String()
	}
	at := lines(MaxFrontmatterSize)
	if _, err := Parse([]byte("---\n" + at + "---\nbody\n")); err != nil {
		t.Fatalf("frontmatter of %d bytes: %v", len(at), err)
	}
	over := at + strings.Repeat("#", MaxFrontmatterSize-len(at)) + "\n"
	// The YAML starts on line 2: the comment line that passes the limit
	// is the line after the last key.
	wantTooLarge(t, "---\n"+over+"---\nbody\n", 2+strings.Count(at, "\n"))
	// Never closed: the limit is still what is reported, not the missing
	// delimiter, since the search for it stops at the limit.
	wantTooLarge(t, "---\n"+over+strings.Repeat("k: v\n", 1000), 2+strings.Count(at, "\n"))
}

func TestParseRefusesTooManyNodes(t *testing.T) {
	t.Parallel()
	// name: x and description: y are a document, a mapping and four
	// scalars; metadata and its mapping two more.
	fm := func(keys int) string {
		var b strings.Builder
		b.WriteString("---\nname: x\ndescription: y\nmetadata:\n")
		for i := range keys {
			fmt.Fprintf(&b, "  k%d: v\n", i)
		}
		return b.String() + "---\n"
	}
	keys := (MaxFrontmatterNodes - 8) / 2
	if _, err := Parse([]byte(fm(keys))); err != nil {
		t.Fatalf("%d nodes: %v", MaxFrontmatterNodes, err)
	}
	// The extra key is on line 5+keys; its value is the node past the limit.
	wantTooLarge(t, fm(keys+1), 5+keys)
}

// TestParseMemoryIsBounded measures the bytes Parse allocates, which must
// not grow with the frontmatter: a frontmatter over the size limit is
// refused before the YAML parser sees it, and one at the limit costs a
// bounded multiple of the limit however densely it is written. Not
// parallel: the allocation counters are the process's.
func TestParseMemoryIsBounded(t *testing.T) {
	allocated := func(data []byte) (uint64, error) {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err := Parse(data)
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc, err
	}
	over := []byte("---\n" + denseFrontmatter(8*MaxFrontmatterSize) + "---\nbody\n")
	n, err := allocated(over)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Parse of %d bytes of frontmatter = %v, want ErrTooLarge", len(over), err)
	}
	if n > 16<<10 {
		t.Errorf("refusing %d bytes of frontmatter allocated %d bytes; the refusal must come before parsing", len(over), n)
	}

	at := []byte("---\n" + denseFrontmatter(MaxFrontmatterSize) + "---\nbody\n")
	n, err = allocated(at)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Parse of dense frontmatter at the size limit = %v, want ErrTooLarge for its nodes", err)
	}
	// The YAML parser's nodes, events and tokens take about 220 bytes for
	// every two bytes of this input; the bound leaves room for parser
	// versions, not for growth with the input.
	if limit := uint64(512 * MaxFrontmatterSize); n > limit {
		t.Errorf("parsing %d bytes of frontmatter allocated %d bytes, more than %d", len(at)-len("---\n---\nbody\n"), n, limit)
	}
}
