package harness

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// FEProxy is a second FE HTTP endpoint in front of a simulator's: it passes
// requests through and lets a test rewrite the answers of chosen paths, to
// play an FE whose clock runs ahead or one that answers garbage.
type FEProxy struct {
	srv     *httptest.Server
	mu      sync.Mutex
	rewrite func(path string, status int, body []byte) (int, []byte)
}

// StartFEProxy proxies to the FE HTTP address target (host:port, plain HTTP).
func StartFEProxy(t testing.TB, target string) *FEProxy {
	t.Helper()
	u := &url.URL{Scheme: "http", Host: target}
	p := &FEProxy{}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.ModifyResponse = p.modify
	p.srv = httptest.NewServer(rp)
	t.Cleanup(p.srv.Close)
	return p
}

// Addr is the proxy's host:port, for fenodes.
func (p *FEProxy) Addr() string { return strings.TrimPrefix(p.srv.URL, "http://") }

// Rewrite sets (or with nil clears) the answer rewriter. It sees the request
// path, the FE's status and body, and returns what the client gets.
func (p *FEProxy) Rewrite(f func(path string, status int, body []byte) (int, []byte)) {
	p.mu.Lock()
	p.rewrite = f
	p.mu.Unlock()
}

func (p *FEProxy) modify(resp *http.Response) error {
	p.mu.Lock()
	f := p.rewrite
	p.mu.Unlock()
	if f == nil {
		return nil
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return err
	}
	status, body := f(resp.Request.URL.Path, resp.StatusCode, body)
	resp.StatusCode = status
	resp.Status = strconv.Itoa(status) + " " + http.StatusText(status)
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
	return nil
}
