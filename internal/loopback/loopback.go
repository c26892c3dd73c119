// Package loopback holds the one rule for a host that is this machine,
// where stax speaks plain HTTP: to a registry, to a git server, and as
// an MCP server without a token.
package loopback

import (
	"net"
	"strings"
)

// Host reports whether host, a name or an IP address without a port, is
// this machine: localhost in any case, as DNS reads names, or a loopback
// address.
func Host(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
