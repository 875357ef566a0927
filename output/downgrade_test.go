package output

import (
	"context"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// plainBE is a plain-http server that records every request's
// Authorization header.
type plainBE struct {
	srv  *httptest.Server
	mu   sync.Mutex
	auth []string
}

func newPlainBE(t *testing.T) *plainBE {
	b := &plainBE{}
	b.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b.mu.Lock()
		b.auth = append(b.auth, r.Header.Get("Authorization"))
		b.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"Status":"Success"}`))
	}))
	t.Cleanup(b.srv.Close)
	return b
}

func (b *plainBE) requests() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.auth...)
}

// httpsFERedirectingTo is an https FE that answers every request with 307
// to the same path on target.
func httpsFERedirectingTo(t *testing.T, target string) *httptest.Server {
	fe := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", target+r.URL.RequestURI())
		w.WriteHeader(http.StatusTemporaryRedirect)
	}))
	t.Cleanup(fe.Close)
	return fe
}

func tlsOutput(t *testing.T, fe *httptest.Server, extra string) *dorisLoad {
	t.Helper()
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: fe.Certificate().Raw})
	yaml := "fenodes: " + strings.TrimPrefix(fe.URL, "https://") + "\nusername: root\npassword: S3cretPw\n" +
		"table_identifier: db.t\nrequest_retries: 2\ntls:\n  enabled: true\n  root_cas: " + strconv.Quote(string(caPEM)) + "\n" + extra
	return outputFromYAML(t, yaml)
}

// An https FE that redirects a load to plain http is refused: the error
// names both hosts and the option, and the http server never sees a
// request, so neither the Authorization header nor the rows leave in clear.
func TestHTTPSRedirectToHTTPRefused(t *testing.T) {
	be := newPlainBE(t)
	fe := httpsFERedirectingTo(t, be.srv.URL)
	o := tlsOutput(t, fe, "")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := o.ld.tr.call(ctx, "stream load", http.MethodPut, "/api/db/t/_stream_load", http.Header{}, []byte(`{"id":1}`))
	if err == nil {
		t.Fatal("a load followed an https FE's redirect to plain http")
	}
	msg := err.Error()
	for _, want := range []string{strings.TrimPrefix(fe.URL, "https://"), strings.TrimPrefix(be.srv.URL, "http://"), "allow_plaintext_redirects"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "attempts") {
		t.Errorf("error %q: a refused downgrade was retried, though every FE redirects alike", msg)
	}
	if got := be.requests(); len(got) != 0 {
		t.Errorf("the plain http server received %d requests (Authorization %q)", len(got), got)
	}
}

// allow_plaintext_redirects follows the redirect, and the BE then gets the
// credentials it checks.
func TestHTTPSRedirectToHTTPAllowed(t *testing.T) {
	be := newPlainBE(t)
	fe := httpsFERedirectingTo(t, be.srv.URL)
	o := tlsOutput(t, fe, "allow_plaintext_redirects: true\n")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := o.ld.tr.call(ctx, "stream load", http.MethodPut, "/api/db/t/_stream_load", http.Header{}, []byte(`{"id":1}`)); err != nil {
		t.Fatalf("with allow_plaintext_redirects: %v", err)
	}
	if got := be.requests(); len(got) != 1 || !strings.HasPrefix(got[0], "Basic ") {
		t.Errorf("plain BE requests %q, want one with Basic auth", got)
	}
}

func TestCheckHop(t *testing.T) {
	tr := &transport{}
	for _, tc := range []struct {
		from, to string
		refused  bool
	}{
		{"https://fe:8030/api/x", "http://be:8040/api/x", true},
		{"https://fe:8030/api/x", "https://be:8040/api/x", false},
		{"http://fe:8030/api/x", "http://be:8040/api/x", false},
		{"http://fe:8030/api/x", "https://be:8040/api/x", false},
	} {
		from, _ := http.NewRequest(http.MethodPut, tc.from, nil)
		err := tr.checkHop(from.URL, tc.to)
		if (err != nil) != tc.refused {
			t.Errorf("%s -> %s: err = %v, refused want %v", tc.from, tc.to, err, tc.refused)
		}
	}
	tr.allowPlainHop = true
	from, _ := http.NewRequest(http.MethodPut, "https://fe:8030/x", nil)
	if err := tr.checkHop(from.URL, "http://be:8040/x"); err != nil {
		t.Errorf("allowed downgrade refused: %v", err)
	}
}
