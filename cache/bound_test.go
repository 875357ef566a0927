package cache_test

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/cache"
)

// tricklingServer accepts MySQL connections and sends the greeting one
// byte every 100ms without end: every read finishes within the socket
// timeout, so only a deadline on the whole attempt ends it.
func tricklingServer(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				// A packet header announcing a 16 MiB greeting, then its bytes.
				if _, err := conn.Write([]byte{0xfe, 0xff, 0xff, 0}); err != nil {
					return
				}
				for {
					time.Sleep(100 * time.Millisecond)
					if _, err := conn.Write([]byte{'x'}); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// TestOperationAgainstATricklingServerIsBounded: a Get with a caller
// context that has no deadline returns an error once connectTimeout plus
// three socketTimeouts ran out, instead of reading a trickle forever.
func TestOperationAgainstATricklingServerIsBounded(t *testing.T) {
	addr := tricklingServer(t)
	c := newCache(t, "jdbc_url: jdbc:mysql://"+addr+"?connectTimeout=500&socketTimeout=500\ntable: ops.cp\ncreate_table: false\nbackoff:\n  initial_interval: 10ms\n  max_elapsed_time: 100ms\n")
	done := make(chan error, 1)
	go func() {
		_, err := c.Get(context.Background(), "k")
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "no answer within 2s") {
			t.Fatalf("Get against a trickling server: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Get still running 20s into an attempt bounded at 2s")
	}
}

// TestUnlimitedBackoffIsRefused: max_elapsed_time 0 means "retry for ever"
// to the backoff; the lint rule and the constructor both refuse it.
func TestUnlimitedBackoffIsRefused(t *testing.T) {
	yaml := "jdbc_url: jdbc:mysql://127.0.0.1:9030\ntable: ops.cp\nbackoff:\n  max_elapsed_time: 0s\n"
	pc, err := cache.Spec().ParseYAML(yaml, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cache.FromParsed(pc, nil); err == nil || !strings.Contains(err.Error(), "backoff.max_elapsed_time must be positive") {
		t.Fatalf("constructor: %v", err)
	}
	b := service.NewStreamBuilder()
	err = b.AddCacheYAML("label: cp\ndoris:\n  " + strings.ReplaceAll(strings.TrimSpace(yaml), "\n", "\n  ") + "\n")
	if err == nil || !strings.Contains(err.Error(), "backoff.max_elapsed_time must be positive") {
		t.Fatalf("lint: %v", err)
	}
}
