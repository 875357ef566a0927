package testnet

import (
	"net"
	"testing"
	"time"
)

func TestFreeAddrRefusesDials(t *testing.T) {
	addr := FreeAddr(t)
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err == nil {
		c.Close()
		t.Fatalf("a dial to %s was accepted", addr)
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listening on the freed %s: %v", addr, err)
	}
	l.Close()
}
