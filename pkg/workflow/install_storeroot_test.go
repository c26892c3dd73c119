package workflow_test

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gofrs/flock"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/workflow"
)

// lockProbe is the warnings of an install: when the install says that it
// could not register its project as a store root, it tries the local
// store's lock from a descriptor of its own, which a flock held by the
// install refuses.
type lockProbe struct {
	mu     sync.Mutex
	lock   string
	noted  bool
	locked bool
}

func (p *lockProbe) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if strings.Contains(string(b), "not registered as kept by stax store prune") {
		l := flock.New(p.lock)
		ok, err := l.TryLock()
		if err == nil && ok {
			l.Unlock()
		}
		p.noted, p.locked = true, err == nil && !ok
	}
	return len(b), nil
}

// An install registers its project as a root of the local store while it
// holds the store's lock, which stax store prune reads the roots under:
// a prune sees either the packages the install stored and its project
// registered, or neither, never the packages without the project that
// keeps those only stax.lock pins.
func TestInstallRegistersItsProjectWhileItHoldsTheStore(t *testing.T) {
	t.Parallel()
	p, env := publishSolo(t)
	// The registration fails, and says so, where the probe can look at
	// the store's lock.
	filetest.WriteFile(t, filepath.Join(env.Getenv(store.EnvHome), "store-roots"), "not a directory")
	probe := &lockProbe{lock: env.Opener.StoreDir + ".lock"}
	env.Warnings = probe
	_, err := workflow.Install(context.Background(), env, workflow.InstallOptions{Where: claudeCode(t.TempDir()), Sources: []string{p.Reg.Host + "/solo:1"}})
	if err != nil {
		t.Fatal(err)
	}
	if !probe.noted {
		t.Fatal("the install did not say that it could not register its project")
	}
	if !probe.locked {
		t.Error("the install registered its project with the local store's lock released: a prune in between drops what only its stax.lock pins")
	}
}
