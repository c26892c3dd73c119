package workflow_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/packagetest"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/workflow"
)

// A source of stax.yaml that fails to resolve is named with its line:
// no version in its range, no such tag, and a failure of what it depends
// keep the class they had (exit 4 and 3). One named on the command line
// is the command line's, named as before.
func TestInstallNamesTheLineOfTheSourceThatFails(t *testing.T) {
	t.Parallel()
	p := packagetest.New(t)
	p.Publish("acme/ok:1.0.0", "ok")
	p.Publish("acme/x:1.0.0", "x one")
	host := p.Reg.Host
	tests := map[string]struct {
		source, want string
		class        errdefs.Class
	}{
		"no version in range": {"{ref: " + host + "/acme/x, version: ^2.0.0}", "no tag of " + host + "/acme/x is a version in the range ^2.0.0", errdefs.Unresolved},
		"no such tag":         {host + "/acme/x:9.9.9", host + "/acme/x:9.9.9 not found", errdefs.Unavailable},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			env := homeEnv(t, t.TempDir())
			env.Opener.Registry = p.Opener.Registry
			proj := t.TempDir()
			yaml := "# the project's sources\ninstall:\n  runtimes: [claude-code]\n  sources:\n    - " + host + "/acme/ok:1.0.0\n\n    - " + tt.source + "\n"
			if err := os.WriteFile(filepath.Join(proj, "stax.yaml"), []byte(yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := workflow.Install(context.Background(), env, workflow.InstallOptions{Where: claudeCode(proj)})
			place := filepath.Join(proj, "stax.yaml") + ":7: "
			if err == nil || !strings.HasPrefix(err.Error(), place) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want it to start %q and name %q", err, place, tt.want)
			}
			if errdefs.Of(err) != tt.class {
				t.Errorf("class %v, want %v", errdefs.Of(err), tt.class)
			}
		})
	}
	t.Run("command line", func(t *testing.T) {
		t.Parallel()
		env := homeEnv(t, t.TempDir())
		env.Opener.Registry = p.Opener.Registry
		proj := t.TempDir()
		_, err := workflow.Install(context.Background(), env, workflow.InstallOptions{Where: claudeCode(proj), Sources: []string{host + "/acme/x:9.9.9"}})
		if want := "resolve " + host + "/acme/x:9.9.9: "; err == nil || !strings.HasPrefix(err.Error(), want) || errdefs.Of(err) != errdefs.Unavailable {
			t.Fatalf("error %v (%v), want it to start %q, unavailable", err, errdefs.Of(err), want)
		}
	})
}
