package dorissim

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// noRedirect makes the 307 visible, as Doris clients handle it themselves.
var noRedirect = &http.Client{
	Timeout:       30 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// viaFE sends a PUT the way Doris clients do: to the FE with
// Expect: 100-continue, then, with credentials, to the BE the FE redirects
// to with 307. The body is sent only to the BE. It returns the decoded
// JSON answer of whichever hop answered with a body.
func viaFE(t *testing.T, s *Server, path string, body io.Reader, hdr map[string]string) map[string]any {
	t.Helper()
	out, err := tryViaFE(testCtx(t), s, path, body, hdr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// tryViaFE is viaFE returning its failure, for use off the test goroutine.
func tryViaFE(ctx context.Context, s *Server, path string, body io.Reader, hdr map[string]string) (map[string]any, error) {
	put := func(url string, body io.Reader) (*http.Response, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPut, url, body)
		if err != nil {
			return nil, err
		}
		req.SetBasicAuth("root", "pw")
		req.Header.Set("Expect", "100-continue")
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := noRedirect.Do(req)
		if err != nil {
			return nil, fmt.Errorf("PUT %s: %w", url, err)
		}
		return resp, nil
	}
	resp, err := put("http://"+s.HTTPAddr()+path, http.NoBody)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == http.StatusTemporaryRedirect {
		resp.Body.Close()
		loc := resp.Header.Get("Location")
		if loc == "" {
			return nil, fmt.Errorf("FE 307 for %s without Location", path)
		}
		if resp, err = put(loc, body); err != nil {
			return nil, err
		}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("read answer of %s: %w", path, err)
	}
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil || resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("PUT %s answered %d %s (%v)", path, resp.StatusCode, data, err)
	}
	return out, nil
}

// loadInto stream-loads body into db.table and returns Doris's answer,
// whatever its Status.
func loadInto(t *testing.T, s *Server, db, table string, body io.Reader, hdr map[string]string) map[string]any {
	t.Helper()
	return viaFE(t, s, "/api/"+db+"/"+table+"/_stream_load", body, hdr)
}

// txn2PC calls _stream_load_2pc with the given headers.
func txn2PC(t *testing.T, s *Server, db string, hdr map[string]string) map[string]any {
	t.Helper()
	return viaFE(t, s, "/api/"+db+"/_stream_load_2pc", http.NoBody, hdr)
}

// loadState is GET /api/{db}/get_load_state?label=, returning data.
func loadState(t *testing.T, s *Server, db, label string) string {
	t.Helper()
	code, data := httpDo(t, s, "GET", "/api/"+db+"/get_load_state?label="+label, "", nil)
	var env struct {
		Code int    `json:"code"`
		Data string `json:"data"`
	}
	if err := json.Unmarshal(data, &env); err != nil || code != http.StatusOK || env.Code != 0 {
		t.Fatalf("get_load_state %s: %d %s (%v)", label, code, data, err)
	}
	return env.Data
}

// wantFields fails unless every key of want is in got with that value.
func wantFields(t *testing.T, what string, got map[string]any, want map[string]any) {
	t.Helper()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s = %#v, want %#v (answer %v)", what, k, got[k], v, got)
		}
	}
}

func wantContains(t *testing.T, what string, got any, sub string) {
	t.Helper()
	if s, _ := got.(string); !strings.Contains(s, sub) {
		t.Errorf("%s: %#v does not contain %q", what, got, sub)
	}
}

func countRows(t *testing.T, s *Server, table string) string {
	t.Helper()
	conn := mysqlConn(t, s)
	rows, err := mysqlText(testCtx(t), conn, "SELECT COUNT(*) FROM "+table)
	if err != nil || len(rows) != 1 {
		t.Fatalf("count %s: %v %v", table, rows, err)
	}
	return rows[0][0]
}
