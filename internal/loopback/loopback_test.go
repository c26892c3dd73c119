package loopback

import "testing"

func TestHost(t *testing.T) {
	t.Parallel()
	for host, want := range map[string]bool{
		"localhost": true, "LOCALHOST": true, "LocalHost": true, "127.0.0.1": true, "127.0.0.53": true, "::1": true,
		"localhost.": false, "localhost.example.com": false, "10.0.0.1": false, "::": false, "": false, "[::1]": false,
	} {
		if got := Host(host); got != want {
			t.Errorf("Host(%q) = %v, want %v", host, got, want)
		}
	}
}
