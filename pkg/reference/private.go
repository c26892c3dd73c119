package reference

import (
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// privateNets are the networks of a machine's own that netip does not
// classify: shared address space of carrier-grade NAT (RFC 6598), which
// overlay networks such as Tailscale give their machines; the
// benchmarking network (RFC 2544), which some container networks use;
// and IPv6 site-local addresses (RFC 3879, deprecated, still routed
// locally).
var privateNets = []netip.Prefix{
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("fec0::/10"),
}

// localNames are the names /etc/hosts of common systems gives the machine
// itself (Debian and Ubuntu add ip6-localhost and ip6-loopback, Red Hat
// localhost.localdomain).
var localNames = map[string]bool{
	"localhost": true, "ip6-localhost": true, "ip6-loopback": true, "localhost.localdomain": true,
}

// localDomains are the domains only a resolver of the machine's own or
// of its network answers: localhost (RFC 6761), local (mDNS, RFC 6762),
// home.arpa (RFC 8375), internal (reserved for private use by ICANN,
// Docker Desktop's host.docker.internal), localdomain, and the names RFC
// 6762 appendix G lists as in private use (intranet, private, corp, home,
// lan).
var localDomains = []string{
	".localhost", ".local", ".home.arpa", ".internal", ".localdomain",
	".intranet", ".private", ".corp", ".home", ".lan",
}

// IsPrivate reports whether hostport, a registry as a reference writes
// it, names the machine stax runs on or a network of its own rather than
// a host on the internet. A name is private when it is one /etc/hosts
// gives the machine itself (localhost, ip6-localhost, …), is in a domain
// only a local resolver answers (*.localhost, *.local, *.internal,
// *.home.arpa, …), or has a single label (registry:5000, vm), which only
// /etc/hosts, a search domain or a container network's resolver
// completes. An address is private when it is loopback (127.0.0.0/8,
// ::1), unspecified (0.0.0.0/8, ::), private (10.0.0.0/8, 172.16.0.0/12,
// 192.168.0.0/16, fc00::/7), link-local (169.254.0.0/16, fe80::/10),
// multicast, or in one of privateNets, also when an IPv6 address embeds
// such an IPv4 one (IPv4-mapped, NAT64, 6to4) or when it is written as
// the C library's resolver reads numbers (127.1, 2130706433 and 0x7f.1
// are 127.0.0.1). It goes by the name as written: a DNS name on the
// internet that resolves to such an address is not one (see
// docs/security.md).
func IsPrivate(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	ip, err := netip.ParseAddr(host)
	if err != nil {
		var ok bool
		if ip, ok = numericIPv4(host); !ok {
			return isLocalName(host)
		}
	}
	ip = ip.Unmap()
	if v4, ok := embeddedIPv4(ip); ok {
		ip = v4
	}
	if ip.Is4() && ip.As4()[0] == 0 {
		return true // 0.0.0.0/8: "this network", which Linux connects to itself
	}
	if ip.IsLoopback() || ip.IsUnspecified() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsMulticast() {
		return true
	}
	for _, n := range privateNets {
		if n.Contains(ip) {
			return true
		}
	}
	return false
}

// isLocalName reports whether name, a host name that is no address, is
// one that only the machine or its network resolves.
func isLocalName(name string) bool {
	if localNames[name] || !strings.Contains(name, ".") {
		return true
	}
	for _, domain := range localDomains {
		if strings.HasSuffix(name, domain) {
			return true
		}
	}
	return false
}

// embeddedIPv4 is the IPv4 address ip carries when it is an IPv6 address
// that a translator or tunnel turns into one: IPv4-compatible (::/96),
// IPv4-translated (::ffff:0:0:0/96), NAT64 (64:ff9b::/96) or 6to4
// (2002::/16).
func embeddedIPv4(ip netip.Addr) (netip.Addr, bool) {
	if !ip.Is6() {
		return netip.Addr{}, false
	}
	b := ip.As16()
	last := netip.AddrFrom4([4]byte(b[12:]))
	for _, p := range []netip.Prefix{ipv4Compatible, ipv4Translated, nat64} {
		if p.Contains(ip) && !ip.IsLoopback() && !ip.IsUnspecified() {
			return last, true
		}
	}
	if sixToFour.Contains(ip) {
		return netip.AddrFrom4([4]byte(b[2:6])), true
	}
	return netip.Addr{}, false
}

var (
	ipv4Compatible = netip.MustParsePrefix("::/96")
	ipv4Translated = netip.MustParsePrefix("::ffff:0:0:0/96")
	nat64          = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour      = netip.MustParsePrefix("2002::/16")
)

// numericIPv4 reads host as inet_aton does: one to four parts separated
// by dots, each decimal, octal (a leading 0) or hexadecimal (0x), the
// last filling the bytes the others leave. Go's own resolver does not,
// but a stax built with cgo resolves names through the C library, which
// does.
func numericIPv4(host string) (netip.Addr, bool) {
	parts := strings.Split(host, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	var addr uint64
	for i, part := range parts {
		n, ok := numericPart(part)
		if !ok {
			return netip.Addr{}, false
		}
		if i < len(parts)-1 {
			if n > 0xff {
				return netip.Addr{}, false
			}
			addr |= n << (8 * (3 - i))
			continue
		}
		if n >= 1<<(8*(4-i)) {
			return netip.Addr{}, false
		}
		addr |= n
	}
	return netip.AddrFrom4([4]byte{byte(addr >> 24), byte(addr >> 16), byte(addr >> 8), byte(addr)}), true
}

// numericPart reads one part of numericIPv4.
func numericPart(s string) (uint64, bool) {
	base := 10
	switch {
	case strings.HasPrefix(s, "0x"):
		s, base = s[2:], 16
	case len(s) > 1 && s[0] == '0':
		s, base = s[1:], 8
	}
	n, err := strconv.ParseUint(s, base, 32)
	return n, err == nil
}
