package doris

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

const (
	testUser     = "root"
	testPassword = "s3cr3t-pw"
)

// fe is a fake FE: it checks Basic auth and counts requests.
type fe struct {
	srv  *httptest.Server
	hits atomic.Int64
}

func newFE(t *testing.T, h http.HandlerFunc) *fe {
	t.Helper()
	f := &fe{}
	f.srv = httptest.NewServer(f.wrap(h))
	t.Cleanup(f.srv.Close)
	return f
}

func newTLSFE(t *testing.T, h http.HandlerFunc) *fe {
	t.Helper()
	f := &fe{}
	f.srv = httptest.NewTLSServer(f.wrap(h))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fe) wrap(h http.HandlerFunc) http.HandlerFunc {
	want := "Basic " + base64.StdEncoding.EncodeToString([]byte(testUser+":"+testPassword))
	return func(w http.ResponseWriter, r *http.Request) {
		f.hits.Add(1)
		if r.Header.Get("Authorization") != want {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"msg":"Unauthorized","code":401}`))
			return
		}
		h(w, r)
	}
}

func (f *fe) addr() string {
	return strings.TrimPrefix(strings.TrimPrefix(f.srv.URL, "http://"), "https://")
}

// testClient builds a client over the given FEs in exactly that order, with
// tiny backoffs so retry tests stay quick.
func testClient(t *testing.T, cfg ClientConfig, fes ...string) *Client {
	t.Helper()
	cfg.FENodes = fes
	if cfg.Username == "" {
		cfg.Username, cfg.Password = testUser, testPassword
	}
	if cfg.ReadTimeout == 0 {
		cfg.ReadTimeout = 5 * time.Second
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = 5 * time.Second
	}
	c, err := NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.retry.Backoff = BackoffPolicy{Base: time.Millisecond, Max: 2 * time.Millisecond}
	t.Cleanup(c.Close)
	return c
}

func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func writeJSON(w http.ResponseWriter, body string) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(body))
}

func tsoBody(phys int64) string {
	return `{"code":0,"msg":"success","data":{"window_end_physical_time":1625097600000,"current_tso":` +
		itoa(Compose(phys, 1)) + `,"current_tso_physical_time":` + itoa(phys) + `,"current_tso_logical_counter":1}}`
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
