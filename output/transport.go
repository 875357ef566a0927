package output

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

const (
	maxAnswerBytes = 4 << 20
	maxRedirects   = 3
)

// transport sends Stream Load requests to the FEs. A load goes to an FE,
// which answers 307 towards a BE; the body is sent again to the BE with the
// same credentials (the BE checks them too, like curl --location-trusted).
// net/http's own redirect handling would drop the Authorization header on a
// host change, so redirects are followed here, each hop with a fresh reader
// over the body bytes. The HTTP client, the FE order and the retry loop are
// the doris package's, as the FE REST client's.
type transport struct {
	fes      *doris.FERotation
	retry    doris.RetryPolicy
	scheme   string
	user     string
	password string
	hc       *http.Client
	// loadLimit and requestLimit bound one attempt of a load and of any
	// other request, answer body included: the http.Transport timeouts
	// leave the upload and the reading of the body unbounded.
	loadLimit, requestLimit time.Duration
	// allowPlainHop lets an https load follow a redirect to plain http.
	allowPlainHop bool
}

// transportConfig is the FE connection, as the FE REST client's, and what
// only loads need.
type transportConfig struct {
	doris.ClientConfig
	LoadLimit               time.Duration
	AllowPlaintextRedirects bool
}

func newTransport(c transportConfig) *transport {
	return &transport{
		fes:      doris.NewFERotation(c.FENodes),
		retry:    doris.RetryPolicy{Attempts: c.Retries, Backoff: doris.DefaultFEBackoff, Log: c.Logger},
		scheme:   c.Scheme(),
		user:     c.Username,
		password: c.Password,
		// Wait for "100 Continue" so that the FE's 307 arrives before the
		// body is sent to it; only the BE reads the body.
		hc:        doris.NewHTTPClient(c.ClientConfig, doris.WithExpectContinue(3*time.Second), doris.WithIdleConnsPerHost(8)),
		loadLimit: c.LoadLimit,
		// Requests other than loads carry no body: connecting plus waiting.
		requestLimit:  c.ConnectTimeout + c.ReadTimeout,
		allowPlainHop: c.AllowPlaintextRedirects,
	}
}

func (t *transport) close() { t.hc.CloseIdleConnections() }

// httpError is a final non-200 answer.
type httpError struct {
	url    string
	status int
	body   string
}

func (e *httpError) Error() string {
	return fmt.Sprintf("%s answered HTTP %d: %s", e.url, e.status, e.body)
}

// attemptTimeout is an attempt cut off by its own deadline, not by the
// caller's: another attempt, on another FE, may succeed.
type attemptTimeout struct {
	limit time.Duration
	err   error
}

func (e *attemptTimeout) Error() string {
	return fmt.Sprintf("no complete answer within %s: %v", e.limit, e.err)
}

func (e *attemptTimeout) Unwrap() error { return e.err }

// retryable reports whether another attempt (maybe on another FE) can help:
// connection errors, attempt timeouts, 5xx, 408 and 429 can; other answers
// repeat.
func retryable(err error) bool {
	var te *attemptTimeout
	if errors.As(err, &te) {
		return true
	}
	var he *httpError
	if errors.As(err, &he) {
		return doris.RetryableStatus(he.status)
	}
	var de *downgradeError
	if errors.As(err, &de) {
		return false // every FE would redirect the same way
	}
	return !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

// call performs one logical request, trying the FEs in turn with jittered
// backoff. The same headers, so the same label, go with every attempt. An
// answer that another attempt cannot change is returned at once, named by
// op.
func (t *transport) call(ctx context.Context, op, method, path string, h http.Header, body []byte) ([]byte, error) {
	var data []byte
	err := t.fes.Do(ctx, t.retry, op, func(ctx context.Context, fe string) error {
		var err error
		data, err = t.attempt(ctx, fe, method, path, h, body)
		if err != nil && ctx.Err() == nil && !retryable(err) {
			// The mark stops this call's FE loop only (Do removes it): the
			// batch's own retries judge whether a later call may pass.
			return doris.Permanent(fmt.Errorf("%s: %w", op, err))
		}
		return err
	})
	return data, err
}

// attempt is one exchange under its deadline; only loads carry a body.
func (t *transport) attempt(ctx context.Context, fe, method, path string, h http.Header, body []byte) ([]byte, error) {
	limit := t.requestLimit
	if body != nil {
		limit = t.loadLimit
	}
	actx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	data, err := t.exchange(actx, fe, method, path, h, body)
	if err != nil && ctx.Err() == nil && actx.Err() != nil {
		return nil, &attemptTimeout{limit: limit, err: err}
	}
	return data, err
}

// exchange sends the request to fe and follows redirects; it returns the
// body of the final 200 answer.
func (t *transport) exchange(ctx context.Context, fe, method, path string, h http.Header, body []byte) ([]byte, error) {
	target := t.scheme + "://" + fe + path
	for hop := 0; ; hop++ {
		req, err := t.request(ctx, method, target, h, body)
		if err != nil {
			return nil, err
		}
		resp, err := t.hc.Do(req)
		if err != nil {
			return nil, err
		}
		data, rerr := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes+1))
		resp.Body.Close()
		switch resp.StatusCode {
		case http.StatusTemporaryRedirect, http.StatusPermanentRedirect, http.StatusFound, http.StatusSeeOther, http.StatusMovedPermanently:
			if hop >= maxRedirects {
				return nil, fmt.Errorf("%s: more than %d redirects", target, maxRedirects)
			}
			if target, err = nextHop(req.URL, resp.Header.Get("Location")); err != nil {
				return nil, err
			}
			if err := t.checkHop(req.URL, target); err != nil {
				return nil, err
			}
			continue
		}
		if rerr != nil {
			return nil, fmt.Errorf("read answer of %s: %w", redact(req.URL), rerr)
		}
		if len(data) > maxAnswerBytes {
			return nil, fmt.Errorf("answer of %s exceeds %d bytes", redact(req.URL), maxAnswerBytes)
		}
		if resp.StatusCode != http.StatusOK {
			return nil, &httpError{url: redact(req.URL), status: resp.StatusCode, body: doris.Snippet(data)}
		}
		return data, nil
	}
}

func (t *transport) request(ctx context.Context, method, target string, h http.Header, body []byte) (*http.Request, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, rd)
	if err != nil {
		return nil, err
	}
	for k, vs := range h {
		req.Header[k] = vs
	}
	req.SetBasicAuth(t.user, t.password)
	if body != nil {
		req.Header.Set("Expect", "100-continue")
		req.ContentLength = int64(len(body))
	}
	return req, nil
}

// nextHop resolves a redirect's Location. Credentials embedded in the URL
// are dropped: they would be logged in errors; Basic auth is sent anyway.
func nextHop(from *url.URL, loc string) (string, error) {
	if loc == "" {
		return "", fmt.Errorf("%s redirected without a Location", redact(from))
	}
	u, err := from.Parse(loc)
	if err != nil {
		return "", fmt.Errorf("%s redirected to an invalid Location: %w", redact(from), err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("%s redirected to unsupported scheme %q", redact(from), u.Scheme)
	}
	u.User = nil
	return u.String(), nil
}

func redact(u *url.URL) string {
	c := *u
	c.User = nil
	c.RawQuery = ""
	return c.String()
}
