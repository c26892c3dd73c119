package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/pkg/artifact"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = ""

type versionOptions struct {
	IO     *IOStreams
	Global *globalOptions
}

type versionInfo struct {
	Version     string `json:"version"`
	SpecVersion string `json:"specVersion"`
	GoVersion   string `json:"goVersion"`
	Platform    string `json:"platform"`
}

func newVersionCmd(f *factory, runF func(context.Context, *versionOptions) error) *cobra.Command {
	opts := &versionOptions{IO: f.IO, Global: f.Global}
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the stax version and the specification version it implements",
		Args:    cobra.NoArgs,
		Example: "  stax version\n  stax version --output json",
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runVersion(opts)
		},
	}
}

func runVersion(opts *versionOptions) error {
	info := currentVersion()
	if opts.Global.json() {
		return writeJSON(opts.IO.Out, info)
	}
	_, err := fmt.Fprintln(opts.IO.Out, info)
	return err
}

// currentVersion describes this build of stax.
func currentVersion() versionInfo {
	return versionInfo{
		Version:     buildVersion(),
		SpecVersion: artifact.SpecVersion,
		GoVersion:   runtime.Version(),
		Platform:    runtime.GOOS + "/" + runtime.GOARCH,
	}
}

// String is the text form of stax version and stax --version.
func (v versionInfo) String() string {
	return fmt.Sprintf("stax %s (stax spec %s, %s, %s)", v.Version, v.SpecVersion, v.GoVersion, v.Platform)
}

func buildVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
