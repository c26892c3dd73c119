package resolve_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/internal/packagetest"
	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/cache"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/pack"
	"github.com/stax-dev/stax/pkg/registry"
	"github.com/stax-dev/stax/pkg/resolve"
	"github.com/stax-dev/stax/pkg/staxyaml"
	"github.com/stax-dev/stax/pkg/target"
)

// publicHost is the name under which the tests reach a registry as if it
// were on the internet: not a private name, though it runs on loopback.
const publicHost = "skills.example.com"

// publicOpener opens references as stax does, but reaches publicHost:PORT
// at reg, over plain HTTP: a registry on the internet, as far as the
// client can tell from the reference, which is all stax judges by.
func publicOpener(t *testing.T, reg *registrytest.Registry) (*target.Opener, string) {
	t.Helper()
	_, port, err := net.SplitHostPort(reg.Host)
	if err != nil {
		t.Fatal(err)
	}
	public := net.JoinHostPort(publicHost, port)
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil
	var d net.Dialer
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if addr == public {
			addr = reg.Host
		}
		return d.DialContext(ctx, network, addr)
	}
	plain := true
	client, err := registry.New(registry.Options{PlainHTTP: &plain, Transport: tr, RegistryConfig: filepath.Join(t.TempDir(), "config.json")})
	if err != nil {
		t.Fatal(err)
	}
	return &target.Opener{StoreDir: filepath.Join(t.TempDir(), "store"), Registry: client}, public
}

// A package from a registry on the internet that names a dependency on
// the consumer's own machine (a loopback registry here) would make every
// consumer call it: it is refused, exit 4, naming the package and the
// dependency, before a request reaches that registry — whether the
// dependency is listed without a digest (packages layer) or pinned in the
// config. The consumer naming that registry itself allows it.
func TestDependencyOnAPrivateRegistryFromAPublicOne(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := packagetest.New(t)
	local := registrytest.New(t)
	base := local.Host + "/acme/base:1"
	packagetest.RefImpl{Name: "base", Version: "1.0.0", Skills: map[string]string{"base/SKILL.md": packagetest.Skill("base")}}.Push(t, base)
	packagetest.RefImpl{Name: "agent", Version: "1.0.0", Dependencies: []string{base}}.Push(t, p.Reg.Host+"/acme/agent:1")
	p.Publish("acme/pinned:1", "pinned", base)
	opener, public := publicOpener(t, p.Reg)

	for _, repo := range []string{"acme/agent:1", "acme/pinned:1"} {
		local.ResetRequests()
		decl := public + "/" + repo
		_, err := resolve.Resolve(ctx, packagetest.Declared(t, decl), "", resolve.Options{Source: cache.New(opener, nil)})
		if errdefs.Of(err) != errdefs.Unresolved || !strings.Contains(err.Error(), decl) || !strings.Contains(err.Error(), base) {
			t.Errorf("%s: got %v (%v), want a resolution failure naming the package and %s", repo, err, errdefs.Of(err), base)
		}
		if reqs := local.Requests(); len(reqs) > 0 {
			t.Errorf("%s: the private registry was sent %d requests, the first %s %s", repo, len(reqs), reqs[0].Method, reqs[0].Path)
		}

		g, err := resolve.Resolve(ctx, packagetest.Declared(t, decl, local.Host+"/acme/base:1"), "", resolve.Options{Source: cache.New(opener, nil)})
		if err != nil {
			t.Fatalf("%s with the private registry named by the consumer: %v", repo, err)
		}
		if len(g.Order) != 2 || len(g.Direct[0].Children) != 1 {
			t.Errorf("%s: order %v, children %v: the dependency was not resolved", repo, g.Order, g.Direct[0].Children)
		}
		g.Close()
	}

	// The same package read from the registry under its loopback name is
	// the consumer's own network's: it may name the other.
	g, err := resolve.Resolve(ctx, packagetest.Declared(t, p.Reg.Host+"/acme/agent:1"), "", resolve.Options{Source: cache.New(opener, nil)})
	if err != nil {
		t.Fatalf("from a loopback registry: %v", err)
	}
	g.Close()
}

// A name that only the consumer's machine or network resolves — a name
// /etc/hosts gives the machine itself, a single label a search domain
// completes, a domain only a local resolver answers — is private as an
// address is: a package from a registry on the internet may not name it.
func TestDependencyOnALocalNameFromAPublicOne(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := packagetest.New(t)
	opener, public := publicOpener(t, p.Reg)
	for i, host := range []string{"ip6-localhost:5000", "localhost.localdomain:5000", "registry:5000", "vm:80", "host.docker.internal:5000", "printer.local", "nas.home.arpa"} {
		dep := host + "/acme/base:1"
		repo := fmt.Sprintf("acme/agent%d:1", i)
		packagetest.RefImpl{Name: "agent", Version: "1.0.0", Dependencies: []string{dep}}.Push(t, p.Reg.Host+"/"+repo)
		_, err := resolve.Resolve(ctx, packagetest.Declared(t, public+"/"+repo), "", resolve.Options{Source: cache.New(opener, nil)})
		if errdefs.Of(err) != errdefs.Unresolved || !strings.Contains(err.Error(), "may not make stax send requests") || !strings.Contains(err.Error(), dep) {
			t.Errorf("a dependency on %s: got %v (%v), want a resolution failure naming it", host, err, errdefs.Of(err))
		}
	}
}

// The consumer naming a private registry in packages: of its stax.yaml
// allows a public dependency to name it whatever the order of the list:
// the registry listed after the package that needs it counts as well.
func TestPrivateRegistryNamedInPackagesInAnyOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := packagetest.New(t)
	local := registrytest.New(t)
	base := local.Host + "/acme/base:1"
	packagetest.RefImpl{Name: "base", Version: "1.0.0", Skills: map[string]string{"base/SKILL.md": packagetest.Skill("base")}}.Push(t, base)
	packagetest.RefImpl{Name: "agent", Version: "1.0.0", Dependencies: []string{base}}.Push(t, p.Reg.Host+"/acme/agent:1")
	opener, public := publicOpener(t, p.Reg)
	agent := public + "/acme/agent:1"
	for _, order := range [][]string{{base, agent}, {agent, base}} {
		dir := t.TempDir()
		filetest.WriteFile(t, filepath.Join(dir, staxyaml.FileName), "name: mine\nversion: 1.0.0\npackages:\n  - "+order[0]+"\n  - "+order[1]+"\n")
		proj, err := staxyaml.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		deps, err := resolve.Dependencies(resolve.Options{Source: cache.New(opener, nil)}).Resolve(ctx, proj, pack.Options{})
		if err != nil || len(deps) != 2 {
			t.Errorf("packages %v: %d resolved, %v; want both", order, len(deps), err)
		}
	}
}
