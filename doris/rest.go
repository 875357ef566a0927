package doris

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// maxBodyBytes bounds what a single FE response may occupy in memory.
const maxBodyBytes = 64 << 20

// RequestError reports a failed call to one FE endpoint. It never carries
// credentials: they travel only in the Authorization header.
type RequestError struct {
	FE       string // host:port
	Method   string
	Endpoint string // path, e.g. /api/tso
	Status   int    // HTTP status, 0 when no response arrived
	Err      error
}

func (e *RequestError) Error() string {
	return fmt.Sprintf("doris FE %s %s %s: %v", e.FE, e.Method, e.Endpoint, e.Err)
}

func (e *RequestError) Unwrap() error { return e.Err }

// roundTrip performs one HTTP exchange with fe and returns the body of a 200
// response. Non-200 answers become *RequestError, permanent unless the status
// suggests another try may succeed.
func (c *Client) roundTrip(ctx context.Context, fe, method, path string, body []byte) ([]byte, error) {
	fail := func(status int, err error) error {
		re := &RequestError{FE: fe, Method: method, Endpoint: path, Status: status, Err: err}
		if status != 0 && !RetryableStatus(status) {
			return Permanent(re)
		}
		return re
	}
	attemptCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	req, err := c.newRequest(attemptCtx, fe, method, path, body)
	if err != nil {
		return nil, Permanent(&RequestError{FE: fe, Method: method, Endpoint: path, Err: err})
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, fail(0, err)
	}
	defer resp.Body.Close()
	data, err := c.readBody(cancel, resp.Body)
	if err != nil {
		return nil, fail(0, fmt.Errorf("read response (status %d): %w", resp.StatusCode, err))
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fail(resp.StatusCode, fmt.Errorf("HTTP status %d: %s", resp.StatusCode, Snippet(data)))
	}
	return data, nil
}

func (c *Client) newRequest(ctx context.Context, fe, method, path string, body []byte) (*http.Request, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.scheme+"://"+fe+path, rd)
	if err != nil {
		return nil, err
	}
	req.SetBasicAuth(c.user, c.password)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json;charset=UTF-8")
	}
	return req, nil
}

// readBody reads at most maxBodyBytes, giving up after the read timeout: the
// transport's ResponseHeaderTimeout covers only the headers.
func (c *Client) readBody(cancel context.CancelFunc, r io.Reader) ([]byte, error) {
	timedOut := make(chan struct{})
	timer := time.AfterFunc(c.readTO, func() {
		close(timedOut)
		cancel()
	})
	data, err := io.ReadAll(io.LimitReader(r, maxBodyBytes+1))
	stopped := timer.Stop()
	if err != nil {
		if !stopped {
			select {
			case <-timedOut:
				return nil, fmt.Errorf("read timeout after %s: %w", c.readTO, err)
			default:
			}
		}
		return nil, err
	}
	if len(data) > maxBodyBytes {
		return nil, fmt.Errorf("response body exceeds %d bytes", maxBodyBytes)
	}
	return data, nil
}

// RetryableStatus reports whether an HTTP answer with status is worth
// another attempt, maybe on another FE: 5xx, 408 and 429.
func RetryableStatus(status int) bool {
	return status >= 500 || status == http.StatusRequestTimeout || status == http.StatusTooManyRequests
}

// Snippet keeps error texts short when an FE or proxy answers with a page.
func Snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	const limit = 256
	if len(s) > limit {
		s = s[:limit] + "..."
	}
	return s
}
