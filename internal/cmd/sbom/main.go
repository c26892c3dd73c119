// Command sbom writes the CycloneDX SBOM of a Go binary from the module
// list the Go toolchain embeds in it, for the release build
// (.goreleaser.yaml). The same binary gives the same bytes: no serial
// number, and the timestamp is SOURCE_DATE_EPOCH.
//
// Usage: go run ./internal/cmd/sbom BINARY OUTPUT
package main

import (
	"debug/buildinfo"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	cdx "github.com/CycloneDX/cyclonedx-go"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: sbom BINARY OUTPUT")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2], os.Getenv("SOURCE_DATE_EPOCH")); err != nil {
		fmt.Fprintln(os.Stderr, "sbom:", err)
		os.Exit(1)
	}
}

func run(binary, output, epoch string) error {
	info, err := buildinfo.ReadFile(binary)
	if err != nil {
		return err
	}
	bom, err := fromBuildInfo(info, epoch)
	if err != nil {
		return err
	}
	f, err := os.Create(output)
	if err != nil {
		return err
	}
	enc := cdx.NewBOMEncoder(f, cdx.BOMFileFormatJSON)
	enc.SetPretty(true)
	if err := enc.Encode(bom); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// fromBuildInfo is the BOM of a binary built as info says: the main module
// as the application, every module linked in as a library.
func fromBuildInfo(info *buildinfo.BuildInfo, epoch string) (*cdx.BOM, error) {
	bom := cdx.NewBOM()
	bom.SerialNumber = "" // a random serial would make two builds differ
	main := component(cdx.ComponentTypeApplication, info.Main.Path, info.Main.Version, info.Main.Sum)
	var props []cdx.Property
	props = append(props, cdx.Property{Name: "go:version", Value: info.GoVersion})
	for _, s := range info.Settings {
		switch s.Key {
		case "GOOS", "GOARCH", "CGO_ENABLED", "-trimpath", "-ldflags":
			props = append(props, cdx.Property{Name: "go:build:" + s.Key, Value: s.Value})
		}
	}
	bom.Metadata = &cdx.Metadata{Component: &main, Properties: &props}
	if epoch != "" {
		sec, err := strconv.ParseInt(epoch, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("SOURCE_DATE_EPOCH %q is not a number of seconds", epoch)
		}
		bom.Metadata.Timestamp = time.Unix(sec, 0).UTC().Format(time.RFC3339)
	}
	components := []cdx.Component{}
	refs := []string{}
	for _, d := range info.Deps {
		m := d
		if d.Replace != nil {
			m = d.Replace
		}
		c := component(cdx.ComponentTypeLibrary, m.Path, m.Version, m.Sum)
		components = append(components, c)
		refs = append(refs, c.BOMRef)
	}
	bom.Components = &components
	bom.Dependencies = &[]cdx.Dependency{{Ref: main.BOMRef, Dependencies: &refs}}
	return bom, nil
}

func component(kind cdx.ComponentType, path, version, sum string) cdx.Component {
	purl := "pkg:golang/" + path
	if version != "" && version != "(devel)" {
		purl += "@" + version
	}
	c := cdx.Component{BOMRef: purl, Type: kind, Name: path, Version: version, PackageURL: purl}
	// A go.sum hash "h1:BASE64" is the SHA-256 of the module's file list.
	if b64, ok := strings.CutPrefix(sum, "h1:"); ok {
		if raw, err := base64.StdEncoding.DecodeString(b64); err == nil {
			c.Hashes = &[]cdx.Hash{{Algorithm: cdx.HashAlgoSHA256, Value: hex.EncodeToString(raw)}}
		}
	}
	return c
}
