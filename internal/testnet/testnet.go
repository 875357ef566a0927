// Package testnet holds the network helpers that tests in several packages
// need, so that each exists once.
package testnet

import (
	"net"
	"testing"
)

// FreeAddr returns a loopback address whose port was just freed: nothing
// listens on it, so a dial is refused, and a test may listen on it itself.
func FreeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}
