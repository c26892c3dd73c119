package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	cdx "github.com/CycloneDX/cyclonedx-go"
)

// TestSBOMOfBinary builds this very command and checks its SBOM lists the
// module it links (cyclonedx-go) with its version, and that two runs give
// the same bytes.
func TestSBOMOfBinary(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "sbom")
	build := exec.Command("go", "build", "-trimpath", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	for _, out := range []string{a, b} {
		if err := run(bin, out, "1700000000"); err != nil {
			t.Fatal(err)
		}
	}
	da, _ := os.ReadFile(a)
	db, _ := os.ReadFile(b)
	if !bytes.Equal(da, db) {
		t.Error("two SBOMs of the same binary differ")
	}
	var bom cdx.BOM
	if err := cdx.NewBOMDecoder(bytes.NewReader(da), cdx.BOMFileFormatJSON).Decode(&bom); err != nil {
		t.Fatal(err)
	}
	if bom.Metadata.Component.Name != "github.com/stax-dev/stax" || bom.Metadata.Timestamp != "2023-11-14T22:13:20Z" || bom.SerialNumber != "" {
		t.Errorf("metadata = %+v, serial %q", bom.Metadata.Component, bom.SerialNumber)
	}
	found := false
	for _, c := range *bom.Components {
		if c.Name == "github.com/CycloneDX/cyclonedx-go" && strings.HasPrefix(c.Version, "v0.") && c.Hashes != nil && len((*c.Hashes)[0].Value) == 64 {
			found = true
		}
	}
	if !found {
		t.Errorf("cyclonedx-go with its version and hash is not among the components:\n%s", da)
	}
}
