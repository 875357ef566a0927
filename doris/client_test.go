package doris

import (
	"context"
	"crypto/tls"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/internal/testnet"
)

func TestNewClientValidation(t *testing.T) {
	cases := map[string]ClientConfig{
		"no nodes":         {},
		"bad node":         {FENodes: []string{"nohostport"}},
		"negative retries": {FENodes: []string{"h:1"}, Retries: -1},
		"negative timeout": {FENodes: []string{"h:1"}, ReadTimeout: -time.Second},
	}
	for name, cfg := range cases {
		if _, err := NewClient(cfg); err == nil {
			t.Errorf("%s: expected error", name)
		}
	}
	c, err := NewClient(ClientConfig{FENodes: []string{"h:1"}})
	if err != nil {
		t.Fatal(err)
	}
	if c.retry.Attempts != defaultRetries || c.scheme != "http" {
		t.Fatalf("defaults: retries %d scheme %s", c.retry.Attempts, c.scheme)
	}
}

func TestAuthHeaderSentAndWrongPasswordIsNotRetried(t *testing.T) {
	f := newFE(t, func(w http.ResponseWriter, r *http.Request) { writeJSON(w, tsoBody(1760000000123)) })
	good := testClient(t, ClientConfig{Retries: 3}, f.addr())
	if _, err := CurrentTSO(testCtx(t), good); err != nil {
		t.Fatalf("with right credentials: %v", err)
	}
	f.hits.Store(0)
	bad := testClient(t, ClientConfig{Retries: 3, Username: testUser, Password: "wrong-pw"}, f.addr())
	_, err := CurrentTSO(testCtx(t), bad)
	var re *RequestError
	if !errors.As(err, &re) || re.Status != http.StatusUnauthorized {
		t.Fatalf("want auth error, got %v", err)
	}
	if n := f.hits.Load(); n != 1 {
		t.Fatalf("auth failure retried: %d requests", n)
	}
	if strings.Contains(err.Error(), "wrong-pw") {
		t.Fatalf("error leaks the password: %v", err)
	}
}

func TestRetryMovesToNextFEWhenOneRefuses(t *testing.T) {
	f := newFE(t, func(w http.ResponseWriter, r *http.Request) { writeJSON(w, tsoBody(1760000000123)) })
	dead := testnet.FreeAddr(t)
	c := testClient(t, ClientConfig{Retries: 3}, dead, f.addr())
	info, err := CurrentTSO(testCtx(t), c)
	if err != nil {
		t.Fatal(err)
	}
	if info.PhysicalMs != 1760000000123 {
		t.Fatalf("physical %d", info.PhysicalMs)
	}
	if c.Host() != "127.0.0.1" {
		t.Fatalf("host %q", c.Host())
	}
	// The FE that answered stays preferred: the next call goes there first.
	f.hits.Store(0)
	if _, err := CurrentTSO(testCtx(t), c); err != nil {
		t.Fatal(err)
	}
	if c.fes.At(c.fes.Start(), 0) != f.addr() || f.hits.Load() != 1 {
		t.Fatalf("preferred FE %s, hits %d", c.fes.At(c.fes.Start(), 0), f.hits.Load())
	}
}

func TestRetriesServerErrorsThenSucceeds(t *testing.T) {
	var calls atomic.Int64
	f := newFE(t, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) < 3 {
			http.Error(w, "boom", http.StatusInternalServerError)
			return
		}
		writeJSON(w, tsoBody(1760000000123))
	})
	c := testClient(t, ClientConfig{Retries: 3}, f.addr())
	if _, err := CurrentTSO(testCtx(t), c); err != nil {
		t.Fatalf("third attempt should succeed: %v", err)
	}
	if calls.Load() != 3 {
		t.Fatalf("calls %d", calls.Load())
	}
}

func TestRetriesExhaustedNamesFEAndEndpoint(t *testing.T) {
	f := newFE(t, func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "overloaded", http.StatusServiceUnavailable)
	})
	c := testClient(t, ClientConfig{Retries: 2}, f.addr())
	_, err := CurrentTSO(testCtx(t), c)
	if err == nil {
		t.Fatal("expected error")
	}
	for _, want := range []string{"after 2 attempts", f.addr(), "/api/tso", "503", "overloaded"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if f.hits.Load() != 2 {
		t.Fatalf("hits %d", f.hits.Load())
	}
	if strings.Contains(err.Error(), testPassword) {
		t.Fatal("error leaks the password")
	}
}

func TestClientErrorStatusIsNotRetried(t *testing.T) {
	f := newFE(t, func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) })
	c := testClient(t, ClientConfig{Retries: 3}, f.addr())
	_, err := Schema(testCtx(t), c, "db", "t")
	var re *RequestError
	if !errors.As(err, &re) || re.Status != http.StatusNotFound {
		t.Fatalf("want 404 RequestError, got %v", err)
	}
	if f.hits.Load() != 1 {
		t.Fatalf("hits %d", f.hits.Load())
	}
}

func TestReadTimeoutIsRetriedAndBounded(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	slow := newFE(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	c := testClient(t, ClientConfig{Retries: 2, ReadTimeout: 50 * time.Millisecond}, slow.addr())
	_, err := CurrentTSO(testCtx(t), c)
	if err == nil || !strings.Contains(err.Error(), "after 2 attempts") {
		t.Fatalf("want timeout after retries, got %v", err)
	}
}

func TestBodyReadTimeout(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	f := newFE(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(`{"code":0,`))
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	c := testClient(t, ClientConfig{Retries: 1, ReadTimeout: 50 * time.Millisecond}, f.addr())
	_, err := CurrentTSO(testCtx(t), c)
	if err == nil || !strings.Contains(err.Error(), "read timeout") {
		t.Fatalf("want read timeout, got %v", err)
	}
}

func TestContextCancelStopsRetries(t *testing.T) {
	f := newFE(t, func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "down", http.StatusBadGateway)
	})
	c := testClient(t, ClientConfig{Retries: 1000}, f.addr())
	c.retry.Backoff = BackoffPolicy{Base: 20 * time.Millisecond, Max: 20 * time.Millisecond}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := CurrentTSO(ctx, c)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want deadline exceeded, got %v", err)
	}
	if f.hits.Load() >= 1000 {
		t.Fatalf("retries ignored ctx: %d", f.hits.Load())
	}
}

func TestTLS(t *testing.T) {
	f := newTLSFE(t, func(w http.ResponseWriter, r *http.Request) { writeJSON(w, tsoBody(1760000000123)) })
	pool := f.srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	c := testClient(t, ClientConfig{Retries: 1, TLS: &tls.Config{RootCAs: pool}}, f.addr())
	if c.scheme != "https" {
		t.Fatalf("scheme %s", c.scheme)
	}
	if _, err := CurrentTSO(testCtx(t), c); err != nil {
		t.Fatal(err)
	}
	// Without trusting the test CA the handshake must fail.
	c2 := testClient(t, ClientConfig{Retries: 1, TLS: &tls.Config{}}, f.addr())
	if _, err := CurrentTSO(testCtx(t), c2); err == nil {
		t.Fatal("expected certificate error")
	}
}

func TestHostBeforeAnyCall(t *testing.T) {
	c := testClient(t, ClientConfig{}, "fe-a.example:8030", "[::1]:8030")
	if c.Host() != "fe-a.example" {
		t.Fatalf("host %q", c.Host())
	}
	c.fes.MarkGood("[::1]:8030")
	if c.Host() != "::1" {
		t.Fatalf("host %q", c.Host())
	}
}

// An attempt that fails on its own just as ctx ends must still report the
// context's end: callers tell "asked to stop" from "Doris failed" by it.
func TestContextEndWinsOverAttemptError(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	f := newFE(t, func(w http.ResponseWriter, r *http.Request) {
		cancel() // the deadline passes while this attempt is answered
		http.Error(w, "down", http.StatusBadGateway)
	})
	c := testClient(t, ClientConfig{Retries: 5}, f.addr())
	if _, err := CurrentTSO(ctx, c); !errors.Is(err, context.Canceled) {
		t.Fatalf("want context canceled, got %v", err)
	}
}

// The client tries its FEs in the order fenodes lists them, as the
// doris_load transport does, not in a shuffled one.
func TestClientTriesFEsInConfiguredOrder(t *testing.T) {
	var fes []*fe
	var addrs []string
	for range 5 {
		f := newFE(t, func(w http.ResponseWriter, r *http.Request) { writeJSON(w, tsoBody(1760000000123)) })
		fes, addrs = append(fes, f), append(addrs, f.addr())
	}
	for range 10 {
		c, err := NewClient(ClientConfig{FENodes: addrs, Username: testUser, Password: testPassword, Retries: 1})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := CurrentTSO(testCtx(t), c); err != nil {
			t.Fatal(err)
		}
		c.Close()
	}
	for i, f := range fes {
		if want := map[bool]int64{true: 10, false: 0}[i == 0]; f.hits.Load() != want {
			t.Fatalf("FE %d of fenodes got %d calls, want %d", i, f.hits.Load(), want)
		}
	}
}
