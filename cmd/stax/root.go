package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/stax-dev/stax/internal/heapfloor"
	"github.com/stax-dev/stax/pkg/exitcode"
	"github.com/stax-dev/stax/pkg/registry"
	"github.com/stax-dev/stax/pkg/termtext"
)

// errReported is returned by a command that has already printed its
// failure (a validation report), so Execute only sets the exit code.
var errReported = errors.New("reported")

// environment is the environment a run of stax reads: a variable at a
// time (lookup), and whole (environ) for the programs it runs, git. The
// zero value is the process's.
type environment struct {
	lookup  func(string) (string, bool)
	environ func() []string
	// heapFloor, when set, is given the heap floor of the command run
	// (heapFloorOf) before it runs: Execute sets the binary's, and tests
	// leave it unset, since the collector is the test process's.
	heapFloor func(floor uint64)
}

// newRootCmd builds the stax command. Its commands read their environment
// through env and time registry waits by clock (real time when nil):
// tests give each run its own of both, so that runs need not change the
// process's environment and can run in parallel, and waits are recorded
// instead of slept through.
func newRootCmd(streams *IOStreams, env environment, clock registry.Clock) (*cobra.Command, *bool) {
	global := &globalOptions{errOut: streams.ErrOut, lookupEnv: env.lookup, environ: env.environ, clock: clock}
	started := new(bool)
	root := &cobra.Command{
		Use:   "stax",
		Short: "Package AI-agent skills as OCI artifacts",
		Long: `stax validates skills, packs them into deterministic OCI artifacts, and
keeps them in a local OCI layout store (or any OCI layout directory).`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			*started = true
			if env.heapFloor != nil {
				env.heapFloor(heapFloorOf(cmd))
			}
			if global.Output != outputText && global.Output != outputJSON {
				return flagError(fmt.Errorf("--output must be %q or %q, not %q", outputText, outputJSON, global.Output))
			}
			if err := global.debugFromEnvironment(cmd.Flags().Changed("debug")); err != nil {
				return err
			}
			if err := global.silence(cmd.Flags().Changed("debug"), streams); err != nil {
				return err
			}
			if global.Debug {
				// stderr carries the trace: no progress bar is redrawn over it.
				streams.ErrTTY = false
			}
			// cobra checks required flags and flag groups after this hook,
			// with errors of no class; checked here, they are usage errors.
			if err := missingFlags(cmd); err != nil {
				return err
			}
			if err := cmd.ValidateFlagGroups(); err != nil {
				return flagError(fmt.Errorf("%w (see '%s --help')", err, cmd.CommandPath()))
			}
			return nil
		},
	}
	// stax --version, as gh and kubectl users type it, prints what stax
	// version does.
	// Declared here so that -v stays free and the help says what it does.
	root.Version = buildVersion()
	root.SetVersionTemplate(currentVersion().String() + "\n")
	root.Flags().Bool("version", false, "print the stax version, as stax version does")
	root.SetIn(streams.In)
	root.SetOut(streams.Out)
	root.SetErr(streams.ErrOut)
	root.PersistentFlags().StringVar(&global.Output, "output", outputText, "output format: text or json")
	root.PersistentFlags().StringVar(&global.Layout, "oci-layout", "", "use this OCI layout directory instead of the local store ($STAX_HOME/store)")
	root.PersistentFlags().BoolVar(&global.Verbose, "verbose", false, "print every warning, not one line per kind of warning naming the skills")
	root.PersistentFlags().BoolVarP(&global.Quiet, "quiet", "q", false, "print errors only: no warnings, notes or progress on stderr (results still go to stdout)")
	root.PersistentFlags().BoolVar(&global.Debug, "debug", false, "print each registry request and response (method, URL, status, headers; credentials shown as ***) to stderr")
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return flagError(fmt.Errorf("%w (see '%s --help')", err, cmd.CommandPath()))
	})
	addCommands(root, newFactory(streams, global))
	registerCompletions(root, global)
	flagErrorArgs(root)
	return root, started
}

// missingFlags is a usage error naming the flags cmd requires that were
// not given, with what each is for.
func missingFlags(cmd *cobra.Command) error {
	var missing []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if required := f.Annotations[cobra.BashCompOneRequiredFlag]; len(required) > 0 && required[0] == "true" && !f.Changed {
			missing = append(missing, fmt.Sprintf("--%s, the %s", f.Name, f.Usage))
		}
	})
	if len(missing) == 0 {
		return nil
	}
	return flagError(fmt.Errorf("%s needs %s; see '%s --help'", cmd.CommandPath(), strings.Join(missing, "; and "), cmd.CommandPath()))
}

// unclassified is called with an error that reached the root without a
// class (see errdefs): it exits 2, and the tests fail on it.
var unclassified = func(error) {}

// Execute runs stax with args and returns the process exit code.
func Execute(ctx context.Context, args []string, streams *IOStreams) int {
	return executeIn(ctx, args, streams, environment{heapFloor: heapfloor.Raise}, nil)
}

// executeIn is Execute in the environment env, with registry waits timed
// by clock (see newRootCmd).
func executeIn(ctx context.Context, args []string, streams *IOStreams, env environment, clock registry.Clock) int {
	errOut := streams.ErrOut // --quiet silences the command's, not the error
	root, started := newRootCmd(streams, env, clock)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitcode.OK
	}
	if !*started && !is[usageError](err) {
		// cobra failed before any command ran: an unknown command.
		err = flagError(err)
	}
	code, claimed := exitcode.Of(err)
	if !claimed {
		unclassified(err)
	}
	// A command that printed its own report (validate, verify, diff
	// --exit-code) has said everything, in the format asked for.
	if !errors.Is(err, errReported) {
		asJSON := root.PersistentFlags().Lookup("output").Value.String() == outputJSON
		printError(errOut, err, code, asJSON || !*started && argsAskJSON(args))
	}
	return code
}

// writeJSON writes v as indented JSON, the form every --output json takes,
// with the controls encoding/json leaves raw escaped too (termtext.JSON):
// a script's output may end up on a terminal.
func writeJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(termtext.JSON(buf.Bytes()))
	return err
}
