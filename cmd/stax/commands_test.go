package main

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// capture is a runF that keeps the options a command parsed.
func capture[T any](got **T) func(context.Context, *T) error {
	return func(_ context.Context, o *T) error { *got = o; return nil }
}

// Every command parses its arguments and flags into its options and hands
// them to runF: the command line is the command's only job.
func TestCommandsParseIntoOptions(t *testing.T) {
	t.Parallel()
	type check struct {
		args []string
		// build makes the command with a capturing runF; ok checks what
		// it captured.
		build func(f *factory) (*cobra.Command, func() bool)
	}
	tests := map[string]check{
		"validate": {[]string{"skills", "--strict", "--against", "oci:x:1", "--max-size", "1KiB", "--symlink-mode", "flatten"}, func(f *factory) (*cobra.Command, func() bool) {
			var o *validateOptions
			return newValidateCmd(f, capture(&o)), func() bool {
				return o.Dir == "skills" && o.Build.Strict && o.Against == "oci:x:1" && o.Build.MaxSize.Limit() == 1024 && o.Build.Symlinks == "flatten"
			}
		}},
		"init": {[]string{"d", "--name", "n", "--force"}, func(f *factory) (*cobra.Command, func() bool) {
			var o *initOptions
			return newInitCmd(f, capture(&o)), func() bool { return o.Dir == "d" && o.Definition.Name == "n" && o.Force }
		}},
		"pack": {[]string{"d", "-t", "a/b:1", "--created", "2026-01-02T15:04:05Z", "--max-size", "0"}, func(f *factory) (*cobra.Command, func() bool) {
			var o *packOptions
			return newPackCmd(f, capture(&o)), func() bool {
				return o.Dir == "d" && o.Tag == "a/b:1" && o.Build.Created.t != nil && o.Build.MaxSize.Limit() == -1
			}
		}},
		"inspect": {[]string{"r", "--remote", "--max-size", "2MiB"}, func(f *factory) (*cobra.Command, func() bool) {
			var o *inspectOptions
			return newInspectCmd(f, capture(&o)), func() bool { return o.Target == "r" && o.Remote.RemoteOnly && o.Build.MaxSize.Limit() == 2<<20 }
		}},
		"diff": {[]string{"a", "b", "--exit-code"}, func(f *factory) (*cobra.Command, func() bool) {
			var o *diffOptions
			return newDiffCmd(f, capture(&o)), func() bool { return o.A == "a" && o.B == "b" && o.ExitCode }
		}},
		"version": {nil, func(f *factory) (*cobra.Command, func() bool) {
			var o *versionOptions
			return newVersionCmd(f, capture(&o)), func() bool { return o != nil }
		}},
		"render": {[]string{"s", "--budget", "100", "--", "x", "y"}, func(f *factory) (*cobra.Command, func() bool) {
			var o *renderOptions
			return newRenderCmd(f, capture(&o)), func() bool { return o.Skill == "s" && o.Budget == 100 && slices.Equal(o.Args, []string{"x", "y"}) }
		}},
		"bump": {[]string{"s", "--minor", "--dry-run"}, func(f *factory) (*cobra.Command, func() bool) {
			var o *bumpOptions
			return newBumpCmd(f, capture(&o)), func() bool { return o.Skill == "s" && o.Minor && o.DryRun }
		}},
		"list": {[]string{"--prompt"}, func(f *factory) (*cobra.Command, func() bool) {
			var o *listOptions
			return newListCmd(f, capture(&o)), func() bool { return o.Prompt }
		}},
		"show": {[]string{"n"}, func(f *factory) (*cobra.Command, func() bool) {
			var o *showOptions
			return newShowCmd(f, capture(&o)), func() bool { return o.Name == "n" }
		}},
		"mcp": {[]string{"--http", "127.0.0.1:0"}, func(f *factory) (*cobra.Command, func() bool) {
			var o *mcpOptions
			return newMCPCmd(f, capture(&o)), func() bool { return o.HTTP == "127.0.0.1:0" }
		}},
		"push": {[]string{"d", "r", "--against", "x", "--strict"}, func(f *factory) (*cobra.Command, func() bool) {
			var o *pushOptions
			return newPushCmd(f, capture(&o)), func() bool { return o.Source == "d" && o.Destination == "r" && o.Against == "x" && o.Build.Strict }
		}},
		"pull": {[]string{"a", "b", "-o", "out", "--max-files", "0"}, func(f *factory) (*cobra.Command, func() bool) {
			var o *pullOptions
			return newPullCmd(f, capture(&o)), func() bool {
				return slices.Equal(o.Refs, []string{"a", "b"}) && o.Output == "out" && o.Limits.MaxFiles.Limit() == -1
			}
		}},
		"copy": {[]string{"a", "b", "--no-referrers"}, func(f *factory) (*cobra.Command, func() bool) {
			var o *copyOptions
			return newCopyCmd(f, capture(&o)), func() bool { return o.Source == "a" && o.Destination == "b" && o.NoReferrers }
		}},
		"login": {[]string{"h", "-u", "me", "--password-stdin"}, func(f *factory) (*cobra.Command, func() bool) {
			var o *loginOptions
			return newLoginCmd(f, capture(&o)), func() bool { return o.Host == "h" && o.Username == "me" && o.PasswordStdin }
		}},
		"logout": {[]string{"h"}, func(f *factory) (*cobra.Command, func() bool) {
			var o *logoutOptions
			return newLogoutCmd(f, capture(&o)), func() bool { return o.Host == "h" }
		}},
		"resolve": {[]string{"r", "--remote"}, func(f *factory) (*cobra.Command, func() bool) {
			var o *resolveOptions
			return newResolveCmd(f, capture(&o)), func() bool { return o.Ref == "r" && o.Remote.RemoteOnly }
		}},
		"tags": {[]string{"r", "--all", "--local"}, func(f *factory) (*cobra.Command, func() bool) {
			var o *tagsOptions
			return newTagsCmd(f, capture(&o)), func() bool { return o.Ref == "r" && o.All && o.Local }
		}},
		"install": {[]string{"a", "--runtime", "codex,cursor", "--frozen", "--dir", "p"}, func(f *factory) (*cobra.Command, func() bool) {
			var o *installOptions
			return newInstallCmd(f, capture(&o)), func() bool {
				return slices.Equal(o.Sources, []string{"a"}) && slices.Equal(o.Where.Runtimes, []string{"codex", "cursor"}) && o.Frozen && o.Where.Dir == "p"
			}
		}},
		"add": {[]string{"a", "--version", "^1.0.0", "--dir", "p"}, func(f *factory) (*cobra.Command, func() bool) {
			var o *installOptions
			return newAddCmd(f, capture(&o)), func() bool {
				return slices.Equal(o.Sources, []string{"a"}) && o.Version == "^1.0.0" && o.Where.Dir == "p"
			}
		}},
		"remove": {[]string{"a", "b", "--force"}, func(f *factory) (*cobra.Command, func() bool) {
			var o *installOptions
			return newRemoveCmd(f, capture(&o)), func() bool { return slices.Equal(o.Sources, []string{"a", "b"}) && o.Force }
		}},
		"outdated": {[]string{"--dir", "p", "--exit-code"}, func(f *factory) (*cobra.Command, func() bool) {
			var o *outdatedOptions
			return newOutdatedCmd(f, capture(&o)), func() bool { return o.Dir == "p" && o.ExitCode }
		}},
		"update": {[]string{"a", "--dry-run", "--latest", "--dir", "p"}, func(f *factory) (*cobra.Command, func() bool) {
			var o *updateOptions
			return newUpdateCmd(f, capture(&o)), func() bool {
				return slices.Equal(o.Sources, []string{"a"}) && o.DryRun && o.Latest && o.Where.Dir == "p"
			}
		}},
		"uninstall": {[]string{"--keep", "x", "--force"}, func(f *factory) (*cobra.Command, func() bool) {
			var o *uninstallOptions
			return newUninstallCmd(f, capture(&o)), func() bool { return slices.Equal(o.Keep, []string{"x"}) && o.Force }
		}},
		"verify": {[]string{"--installed"}, func(f *factory) (*cobra.Command, func() bool) {
			var o *verifyOptions
			return newVerifyCmd(f, capture(&o)), func() bool { return o.Installed }
		}},
		"sign": {[]string{"r", "--key", "k"}, func(f *factory) (*cobra.Command, func() bool) {
			var o *signOptions
			return newSignCmd(f, capture(&o)), func() bool { return o.Ref == "r" && o.Key == "k" }
		}},
		"key generate": {[]string{"--output-prefix", "p", "--force"}, func(f *factory) (*cobra.Command, func() bool) {
			var o *keyGenerateOptions
			return newKeyGenerateCmd(f, capture(&o)), func() bool { return o.Prefix == "p" && o.Force }
		}},
		"store prune": {[]string{"--dry-run"}, func(f *factory) (*cobra.Command, func() bool) {
			var o *storePruneOptions
			return newStorePruneCmd(f, capture(&o)), func() bool { return o.DryRun }
		}},
		"apply": {[]string{"p.json", "--dry-run", "--key", "a.pub", "--signature", "p.sig"}, func(f *factory) (*cobra.Command, func() bool) {
			var o *applyOptions
			return newApplyCmd(f, capture(&o)), func() bool { return o.Proposal == "p.json" && o.DryRun && len(o.Keys) == 1 && o.Signature == "p.sig" }
		}},
		"propose": {[]string{"s", "-o", "p.json", "--runtime", "codex", "--summary", "x", "--key", "k"}, func(f *factory) (*cobra.Command, func() bool) {
			var o *proposeOptions
			return newProposeCmd(f, capture(&o)), func() bool {
				return o.Skill == "s" && o.Output == "p.json" && o.Summary == "x" && o.Key == "k" && len(o.Where.Runtimes) == 1 && o.Where.Runtimes[0] == "codex"
			}
		}},
		"new skill": {[]string{"n", "--stateful"}, func(f *factory) (*cobra.Command, func() bool) {
			var o *newSkillOptions
			return newNewSkillCmd(f, capture(&o)), func() bool { return o.Name == "n" && o.Stateful }
		}},
		"docs": {[]string{"man", "out"}, func(f *factory) (*cobra.Command, func() bool) {
			var o *docsOptions
			return newDocsCmd(f, func(d *docsOptions) error { o = d; return nil }), func() bool { return o.Format == "man" && o.Dir == "out" }
		}},
	}
	// Every command of the tree is in the table.
	root, _ := newRootCmd(&IOStreams{In: strings.NewReader("")}, environment{}, nil)
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Runnable() && c != root && c.Name() != "help" && !strings.HasPrefix(c.CommandPath(), "stax completion") {
			if _, ok := tests[strings.TrimPrefix(c.CommandPath(), "stax ")]; !ok {
				t.Errorf("%s has no case here", c.CommandPath())
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)

	for name, tt := range tests {
		f := newFactory(&IOStreams{In: strings.NewReader(""), Out: &strings.Builder{}, ErrOut: &strings.Builder{}}, &globalOptions{})
		cmd, ok := tt.build(f)
		cmd.SetArgs(tt.args)
		cmd.SetOut(f.IO.Out)
		cmd.SetErr(f.IO.ErrOut)
		if err := cmd.ExecuteContext(context.Background()); err != nil {
			t.Errorf("%s %v: %v", name, tt.args, err)
			continue
		}
		if !ok() {
			t.Errorf("%s %v: the options are not what the command line says", name, tt.args)
		}
	}
}
