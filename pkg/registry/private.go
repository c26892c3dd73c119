package registry

import (
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// cgnat is the shared address space of carrier-grade NAT (RFC 6598),
// which overlay networks such as Tailscale give their machines.
var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// IsPrivate reports whether hostport, a registry as a reference writes
// it, names the machine stax runs on or a network of its own rather than
// a host on the internet: a localhost name (localhost, *.localhost), or
// an address that is loopback (127.0.0.0/8, ::1), unspecified (0.0.0.0/8,
// ::), private (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, fc00::/7),
// link-local (169.254.0.0/16, fe80::/10) or shared (100.64.0.0/10),
// written in any form a resolver reads as one (an IPv4-mapped IPv6
// address, or 127.1, 2130706433 and 0x7f.1, which the C library's
// resolver reads as 127.0.0.1). It goes by the name as written: a DNS
// name that resolves to such an address is not one.
func IsPrivate(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		var ok bool
		if ip, ok = numericIPv4(host); !ok {
			return false
		}
	}
	ip = ip.Unmap()
	if ip.Is4() && ip.As4()[0] == 0 {
		return true // 0.0.0.0/8: "this network", which Linux connects to itself
	}
	return ip.IsLoopback() || ip.IsUnspecified() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || cgnat.Contains(ip)
}

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
