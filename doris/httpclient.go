package doris

import (
	"net"
	"net/http"
	"time"
)

// HTTPOption adapts NewHTTPClient's transport to one kind of caller.
type HTTPOption func(*http.Transport)

// WithExpectContinue makes requests with "Expect: 100-continue" wait up to
// d for the server's go-ahead before the body is sent: a Stream Load's FE
// answers 307 then, and only the BE reads the body.
func WithExpectContinue(d time.Duration) HTTPOption {
	return func(tr *http.Transport) { tr.ExpectContinueTimeout = d }
}

// WithIdleConnsPerHost keeps up to n idle connections per FE or BE.
func WithIdleConnsPerHost(n int) HTTPOption {
	return func(tr *http.Transport) { tr.MaxIdleConnsPerHost = n }
}

// NewHTTPClient builds the HTTP client of a caller of the FEs, the FE REST
// client's and doris_load's: cfg's connect timeout bounds dialing and the
// TLS handshake, its read timeout the wait for response headers; cfg.TLS
// (cloned, so the caller's copy stays its own) makes it https; proxies come
// from the environment; connections are kept alive. It never follows a
// redirect: net/http would resend Basic credentials to another host, so
// the callers that do follow one (doris_load, towards a BE) do it
// themselves, checking each hop.
func NewHTTPClient(cfg ClientConfig, opts ...HTTPOption) *http.Client {
	connectTO := orDefault(cfg.ConnectTimeout, defaultConnectTimeout)
	dialer := &net.Dialer{Timeout: connectTO, KeepAlive: 30 * time.Second}
	tr := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   connectTO,
		ResponseHeaderTimeout: orDefault(cfg.ReadTimeout, defaultReadTimeout),
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       90 * time.Second,
		ForceAttemptHTTP2:     false,
	}
	if cfg.TLS != nil {
		tr.TLSClientConfig = cfg.TLS.Clone()
	}
	for _, o := range opts {
		o(tr)
	}
	return &http.Client{
		Transport:     tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// Scheme is the URL scheme of cfg's FEs: https once TLS is configured.
func (cfg ClientConfig) Scheme() string {
	if cfg.TLS != nil {
		return "https"
	}
	return "http"
}
