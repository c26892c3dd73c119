package reference_test

import (
	"testing"

	"github.com/stax-dev/stax/pkg/reference"
)

func TestIsPrivate(t *testing.T) {
	t.Parallel()
	for _, host := range []string{
		"localhost", "localhost:5000", "LocalHost:5000", "registry.localhost:5000", "localhost.",
		"127.0.0.1:5000", "127.9.9.9", "[::1]:5000", "0.0.0.0:5000", "0.1.2.3", "[::]:5000",
		"10.1.2.3:5000", "172.16.0.1", "172.31.255.255", "192.168.1.10:443", "[fd00::1]:5000", "[fc00::1]",
		"169.254.169.254", "[fe80::1]:5000", "100.64.0.1", "100.127.255.255",
		"[::ffff:127.0.0.1]:5000", "[::ffff:10.0.0.1]",
		"127.1:5000", "2130706433:5000", "0x7f.1", "0x7f000001", "017700000001", "10.1:80", "192.168.257",
		// What /etc/hosts, a search domain or a local resolver answers.
		"ip6-localhost:5000", "ip6-loopback", "localhost.localdomain:5000", "registry:5000", "vm", "VM.",
		"host.docker.internal:5000", "metadata.google.internal", "printer.local:5000", "nas.home.arpa",
		"build.corp:443", "router.lan", "mylocalhost", "1e3",
		// Addresses netip leaves unclassified, or IPv4 ones inside IPv6.
		"198.18.0.1:5000", "[fec0::1]:5000", "224.0.0.1", "[ff02::1]",
		"[::ffff:0:7f00:1]:5000", "[64:ff9b::7f00:1]:5000", "[64:ff9b::a00:1]", "[2002:7f00:1::]:5000", "[::7f00:1]",
	} {
		if !reference.IsPrivate(host) {
			t.Errorf("IsPrivate(%q) = false, want true", host)
		}
	}
	for _, host := range []string{
		"ghcr.io", "registry-1.docker.io:443", "8.8.8.8", "172.32.0.1", "100.128.0.1", "[2001:db8::1]:5000",
		"localhost.example.com", "local.example.com", "internal.example.com", "docker.internal.example.com",
		"127.0.0.1.example.com", "1.2.3.4.5", "0x1g.example", "256.1.1.1", "1.2.3.4294967296",
		"[64:ff9b::808:808]", "[2002:808:808::1]", "[::ffff:0:808:808]",
	} {
		if reference.IsPrivate(host) {
			t.Errorf("IsPrivate(%q) = true, want false", host)
		}
	}
}
