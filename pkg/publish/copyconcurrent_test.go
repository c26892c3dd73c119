package publish_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stax-dev/stax/internal/packagetest"
	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/publish"
	"github.com/stax-dev/stax/pkg/transfer"
)

// CopyDependencies copies the dependencies at once, up to the copy's
// concurrency: the mirror stores a dependency's manifest only once all
// three are being stored together. They are reported in the graph's
// order all the same.
func TestCopyDependenciesCopiesAtOnce(t *testing.T) {
	t.Parallel()
	const deps = 3
	p := packagetest.New(t)
	var declared []string
	for i := range deps {
		p.Publish(fmt.Sprintf("dep%d:1", i), fmt.Sprintf("dep %d", i))
		declared = append(declared, fmt.Sprintf("%s/dep%d:1", p.Reg.Host, i))
	}
	p.Publish("acme/team:1", "team", declared...)
	g, err := p.Resolve(nil, "acme/team:1")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	stored := registrytest.Gate(http.MethodPut, `^/v2/dep\d/manifests/`, deps)
	mirror := registrytest.New(t, registrytest.WithFaults(stored))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	copied, err := publish.CopyDependencies(ctx, g, p.Opener, mirror.Host, transfer.Options{Concurrency: deps})
	if err != nil {
		t.Fatalf("CopyDependencies: %v (the mirror stores the manifests once the %d are copied at once)", err, deps)
	}
	var got, want []string
	for _, c := range copied {
		got = append(got, c.To.Repository)
	}
	for _, n := range g.Order[:len(g.Order)-1] {
		want = append(want, n.Target.Ref.Repository)
	}
	if strings.Join(got, " ") != strings.Join(want, " ") || len(got) != deps {
		t.Errorf("copied %v, want %v in the graph's order", got, want)
	}
	if stored.MaxInFlight() > deps {
		t.Errorf("stored %d manifests at once, want at most %d", stored.MaxInFlight(), deps)
	}
}

// The error is the first dependency's, as copying one after the other
// would report, though it fails after the second one's did.
func TestCopyDependenciesReportsTheFirstFailure(t *testing.T) {
	t.Parallel()
	p := packagetest.New(t)
	p.Publish("dep0:1", "dep 0")
	p.Publish("dep1:1", "dep 1")
	p.Publish("acme/team:1", "team", p.Reg.Host+"/dep0:1", p.Reg.Host+"/dep1:1")
	g, err := p.Resolve(nil, "acme/team:1")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	mirror := registrytest.New(t, registrytest.WithFaults(
		registrytest.Fail(http.MethodPut, `^/v2/dep0/manifests/`, http.StatusForbidden).Times(-1),
		registrytest.Fail("", `^/v2/dep1/`, http.StatusForbidden).Times(-1),
	))
	_, err = publish.CopyDependencies(context.Background(), g, p.Opener, mirror.Host, transfer.Options{Concurrency: 2})
	if err == nil || !strings.Contains(err.Error(), "dep0") || strings.Contains(err.Error(), "dep1") {
		t.Errorf("CopyDependencies: %v, want the error of dep0", err)
	}
}
