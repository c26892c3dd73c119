package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/pkg/agent"
	"github.com/stax-dev/stax/pkg/workflow"
)

// installScope are the flags that say where installed skills live, shared
// by install, uninstall and verify.
type installScope struct {
	Dir      string
	Runtimes []string
	Scope    string
}

// addFlags registers --dir, --runtime and --scope; runtimes says what
// --runtime selects in this command ("runtimes to install into").
func (s *installScope) addFlags(cmd *cobra.Command, runtimes string) {
	flags := cmd.Flags()
	flags.StringVar(&s.Dir, "dir", ".", "the project: where stax.yaml and stax.lock are, and the root of project-scope folders (not used with --scope user)")
	flags.StringSliceVar(&s.Runtimes, "runtime", nil, runtimes+", comma-separated: "+strings.Join(agent.Names(), ", ")+" (default: stax.yaml install.runtimes, with --scope user $STAX_HOME/config.yaml's, else "+agent.Default+")")
	flags.StringVar(&s.Scope, "scope", "", "project (the project's folders) or user (the home directory's, with sources and stax.lock under $STAX_HOME/user, apart from any project); default: stax.yaml install.scope, else project")
}

// where is the folders the flags name.
func (s *installScope) where() workflow.Folders {
	return workflow.Folders{ProjectDir: s.Dir, Runtimes: s.Runtimes, Scope: s.Scope}
}
