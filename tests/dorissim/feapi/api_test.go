package feapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func newTestServer(t *testing.T) (*httptest.Server, *fakeBackend) {
	b := &fakeBackend{}
	srv := httptest.NewServer(New(Config{Backend: b, Hooks: b}))
	t.Cleanup(srv.Close)
	return srv, b
}

type envelopeResp struct {
	Msg   string          `json:"msg"`
	Code  int             `json:"code"`
	Data  json.RawMessage `json:"data"`
	Count *int            `json:"count"`
}

func do(t *testing.T, method, url, body string, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth("root", "pw")
	for k, v := range hdr {
		if k == "auth" {
			req.Header.Del("Authorization")
			if v != "" {
				req.Header.Set("Authorization", v)
			}
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp, data
}

func decodeEnv(t *testing.T, data []byte) envelopeResp {
	t.Helper()
	var e envelopeResp
	if err := json.Unmarshal(data, &e); err != nil {
		t.Fatalf("response %s: %v", data, err)
	}
	return e
}

func TestAuthRequired(t *testing.T) {
	srv, _ := newTestServer(t)
	for _, auth := range []string{"", "Basic cm9vdDp3cm9uZw=="} {
		resp, data := do(t, "GET", srv.URL+"/api/tso", "", map[string]string{"auth": auth})
		if resp.StatusCode != 401 {
			t.Fatalf("auth %q: status %d", auth, resp.StatusCode)
		}
		if e := decodeEnv(t, data); e.Code != 401 || e.Msg != "Unauthorized" {
			t.Fatalf("401 body %s", data)
		}
	}
}

func TestTSO(t *testing.T) {
	srv, b := newTestServer(t)
	resp, data := do(t, "GET", srv.URL+"/api/tso", "", nil)
	e := decodeEnv(t, data)
	if resp.StatusCode != 200 || e.Code != 0 || e.Msg != "success" || e.Count == nil {
		t.Fatalf("tso: %d %s", resp.StatusCode, data)
	}
	var d map[string]int64
	json.Unmarshal(e.Data, &d)
	if d["current_tso"] != 461373440032243713 || d["current_tso_physical_time"] != 1760000000123 ||
		d["current_tso_logical_counter"] != 1 || d["window_end_physical_time"] != 1760000000123 {
		t.Fatalf("tso data %s", e.Data)
	}
	b.tsoErr = 1
	if resp, _ := do(t, "GET", srv.URL+"/api/tso", "", nil); resp.StatusCode != 500 {
		t.Fatalf("TSO fault: %d", resp.StatusCode)
	}
	if resp, _ := do(t, "GET", srv.URL+"/api/tso", "", nil); resp.StatusCode != 200 {
		t.Fatalf("after TSO fault: %d", resp.StatusCode)
	}
}

func TestStatementQuery(t *testing.T) {
	srv, _ := newTestServer(t)
	url := srv.URL + "/api/query/default_cluster/information_schema"
	_, data := do(t, "POST", url, `{"stmt":"SELECT FROM_UNIXTIME(1760000000123 / 1000, '%Y-%m-%d %H:%i:%s')"}`, nil)
	e := decodeEnv(t, data)
	var rs struct {
		Type string
		Meta []struct{ Name, Type string }
		Data [][]any
		Time *int64
	}
	json.Unmarshal(e.Data, &rs)
	if e.Code != 0 || rs.Type != "result_set" || len(rs.Meta) != 1 || rs.Meta[0].Name != "ts" || rs.Meta[0].Type != "VARCHAR" ||
		len(rs.Data) != 1 || rs.Data[0][0] != "2025-10-09 08:53:20" || rs.Time == nil {
		t.Fatalf("result set %s", data)
	}
	_, data = do(t, "POST", url, `{"stmt":"typed"}`, nil)
	e = decodeEnv(t, data)
	if !strings.Contains(string(e.Data), `"data":[[1,"12.30","2026-09-14 10:00:01.500","[1, null]",2.5,null]]`) {
		t.Fatalf("typed values %s", e.Data)
	}
	_, data = do(t, "POST", url, `{"stmt":"SET time_zone = 'UTC'"}`, nil)
	if e := decodeEnv(t, data); !strings.Contains(string(e.Data), `"type":"exec_status","status":{}`) {
		t.Fatalf("exec status %s", data)
	}
	_, data = do(t, "POST", url, `{"stmt":"bogus"}`, nil)
	if e := decodeEnv(t, data); e.Code == 0 || !strings.Contains(e.Msg, "syntax error near bogus") {
		t.Fatalf("error %s", data)
	}
	for _, c := range []struct {
		body string
		want int
	}{{`{"stmt":"numbers"}`, 1000}, {`{"stmt":"numbers","limit":5}`, 5}, {`{"stmt":"numbers","limit":50000}`, 10000}} {
		_, data = do(t, "POST", url, c.body, nil)
		json.Unmarshal(decodeEnv(t, data).Data, &rs)
		if len(rs.Data) != c.want {
			t.Fatalf("%s: %d rows", c.body, len(rs.Data))
		}
	}
}

func TestSchema(t *testing.T) {
	srv, _ := newTestServer(t)
	want := `{"keysType":"UNIQUE_KEYS","properties":[{"name":"order_id","type":"BIGINT","comment":"","aggregation_type":""},` +
		`{"name":"status","type":"VARCHAR","comment":"state","aggregation_type":"REPLACE"},` +
		`{"name":"amount","type":"` + ordersDef.Columns[2].Type.SchemaName() + `","precision":"10","scale":"2","comment":"","aggregation_type":"REPLACE"}],"status":200}`
	for _, path := range []string{"/api/sales/orders/_schema", "/api/internal/sales/orders/_schema"} {
		_, data := do(t, "GET", srv.URL+path, "", nil)
		e := decodeEnv(t, data)
		if e.Code != 0 || string(e.Data) != want {
			t.Fatalf("%s:\n got %s\nwant %s", path, e.Data, want)
		}
	}
	_, data := do(t, "GET", srv.URL+"/api/sales/nope/_schema", "", nil)
	if e := decodeEnv(t, data); e.Code == 0 || !strings.Contains(e.Msg, "Unknown table") {
		t.Fatalf("missing table %s", data)
	}
}

func TestQueryPlan(t *testing.T) {
	srv, _ := newTestServer(t)
	url := srv.URL + "/api/sales/orders/_query_plan"
	_, data := do(t, "POST", url, "{\"sql\":\"select `order_id` from `sales`.`orders` where amount > 1\"}", nil)
	e := decodeEnv(t, data)
	var d struct {
		Partitions map[string]struct {
			Routings   []string
			Version    int64
			SchemaHash *int64
		}
		OpaquedQueryPlan string `json:"opaqued_query_plan"`
		Status           int
	}
	json.Unmarshal(e.Data, &d)
	if e.Code != 0 || d.Status != 200 || len(d.Partitions) != 2 || d.OpaquedQueryPlan == "" {
		t.Fatalf("plan %s", data)
	}
	p := d.Partitions["11017"]
	if len(p.Routings) != 1 || p.Routings[0] != "127.0.0.1:9060" || p.SchemaHash == nil {
		t.Fatalf("partition %s", e.Data)
	}
	cases := []struct{ body, want string }{
		{`{}`, "POST body must contains [sql] root object"},
		{`{"sql":"select * from sales.other"}`, "requested database and table must consistent with sql"},
		{"{\"sql\":\"select * from `sales`.`orders` a join `sales`.`orders` b on a.x=b.x\"}", "Select statement must have only one table"},
		{"{\"sql\":\"select nosuchcol from `sales`.`orders`\"}", "Unknown column 'nosuchcol'"},
	}
	for _, c := range cases {
		_, data := do(t, "POST", url, c.body, nil)
		e := decodeEnv(t, data)
		var f struct {
			Status    int
			Exception string
		}
		json.Unmarshal(e.Data, &f)
		if e.Code == 0 || f.Status == 200 || !strings.Contains(f.Exception, c.want) {
			t.Fatalf("%s: %s", c.body, data)
		}
	}
}

func TestStreamLoad(t *testing.T) {
	srv, b := newTestServer(t)
	url := srv.URL + "/api/sales/orders/_stream_load"
	resp, data := do(t, "PUT", url, "1\tnew\t1.00\n", map[string]string{"label": "l0"})
	if !strings.Contains(string(data), `"status":"FAILED"`) || len(b.loads) != 0 {
		t.Fatalf("load without Expect: %d %s", resp.StatusCode, data)
	}
	resp, data = do(t, "PUT", url, "1\tnew\t1.00\n2\t\\N\t2.50\nbad-row\n", map[string]string{
		"label": "l1", "Expect": "100-continue", "max_filter_ratio": "0.5"})
	var res map[string]any
	json.Unmarshal(data, &res)
	if resp.StatusCode != 200 || res["Status"] != "Success" || res["Label"] != "l1" ||
		res["NumberLoadedRows"] != 2.0 || res["NumberFilteredRows"] != 1.0 || res["NumberTotalRows"] != 3.0 {
		t.Fatalf("csv load: %d %s", resp.StatusCode, data)
	}
	got := b.loads[0]
	if strings.Join(got.Columns, ",") != "order_id,status,amount" || got.MergeType != "APPEND" ||
		*got.Rows[0][1] != "new" || got.Rows[1][1] != nil || *got.Rows[1][2] != "2.50" {
		t.Fatalf("load request %+v", got)
	}
	_, data = do(t, "PUT", url, "1\tx\t1\n", map[string]string{"label": "l1", "Expect": "100-continue"})
	if !strings.Contains(string(data), `"Status": "Label Already Exists"`) ||
		!strings.Contains(string(data), `"Message": "[LABEL_ALREADY_EXISTS]TStatus: errCode = 2, detailMessage = Label [l1] has already been used, relate to txn [7]"`) {
		t.Fatalf("duplicate label: %s", data)
	}
	_, data = do(t, "PUT", url, `[{"order_id":3,"status":"paid","__DORIS_DELETE_SIGN__":1},{"order_id":4,"status":null}]`, map[string]string{
		"label": "l2", "Expect": "100-continue", "format": "json", "strip_outer_array": "true",
		"columns": "order_id,status,__DORIS_DELETE_SIGN__", "partial_columns": "true", "merge_type": "merge"})
	if !strings.Contains(string(data), `"Status": "Success"`) {
		t.Fatalf("json load: %s", data)
	}
	got = b.loads[1]
	if !got.PartialColumns || got.MergeType != "MERGE" || len(got.Rows) != 2 || *got.Rows[0][2] != "1" ||
		*got.Rows[0][0] != "3" || got.Rows[1][1] != nil || got.Rows[1][2] != nil {
		t.Fatalf("json request %+v", got)
	}
	_, data = do(t, "PUT", url, "{\"order_id\":5,\"status\":\"gone\",\"amount\":1,\"__DORIS_DELETE_SIGN__\":1}\n", map[string]string{
		"label": "l3", "Expect": "100-continue", "format": "json", "read_json_by_line": "true",
		"hidden_columns": "__DORIS_DELETE_SIGN__"})
	got = b.loads[2]
	if !strings.Contains(string(data), `"Status": "Success"`) || strings.Join(got.Columns, ",") != "order_id,status,amount,__DORIS_DELETE_SIGN__" ||
		*got.Rows[0][3] != "1" {
		t.Fatalf("hidden_columns load: %s %+v", data, got)
	}
	resp, _ = do(t, "PUT", url, "1\tx\t1\n", map[string]string{"auth": "", "Expect": "100-continue"})
	if resp.StatusCode != 401 {
		t.Fatalf("unauthenticated load: %d", resp.StatusCode)
	}
}

func TestStreamLoadRedirectIsReauthenticated(t *testing.T) {
	srv, _ := newTestServer(t)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, _ := http.NewRequest("PUT", srv.URL+"/api/sales/orders/_stream_load", bytes.NewReader([]byte("1\ta\t1\n")))
	req.SetBasicAuth("root", "pw")
	req.Header.Set("Expect", "100-continue")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if resp.StatusCode != 307 || !strings.Contains(loc, "/api/_be/sales/orders/_stream_load") {
		t.Fatalf("redirect %d %s", resp.StatusCode, loc)
	}
	req2, _ := http.NewRequest("PUT", loc, bytes.NewReader([]byte("1\ta\t1\n")))
	resp2, err := client.Do(req2)
	if err != nil {
		t.Fatal(err)
	}
	resp2.Body.Close()
	if resp2.StatusCode != 401 {
		t.Fatalf("BE without auth: %d", resp2.StatusCode)
	}
}

func TestFaultEndpoint(t *testing.T) {
	srv, b := newTestServer(t)
	resp, data := do(t, "POST", srv.URL+"/api/_sim/faults", `{"tso_errors":2}`, nil)
	if resp.StatusCode != 200 || decodeEnv(t, data).Code != 0 || len(b.faults) != 1 {
		t.Fatalf("set faults %d %s", resp.StatusCode, data)
	}
	if resp, _ := do(t, "POST", srv.URL+"/api/_sim/faults", `not json`, nil); resp.StatusCode != 400 {
		t.Fatalf("bad faults: %d", resp.StatusCode)
	}
	if resp, _ := do(t, "DELETE", srv.URL+"/api/_sim/faults", "", nil); resp.StatusCode != 200 || b.faults != nil {
		t.Fatalf("clear faults %d", resp.StatusCode)
	}
}

func TestShowStatementsAreText(t *testing.T) {
	for stmt, want := range map[string]bool{"show frontends": true, "/* c */ SHOW tables": true, "--c\n-- d\nshow frontends": true, "select 1": false, "sh": false} {
		if isShow(stmt) != want {
			t.Errorf("isShow(%q) = %v", stmt, !want)
		}
	}
}

// The BE reads max_filter_ratio with strtod: leading white space skipped,
// the leading number taken, 0 without one.
func TestFilterRatioReadsLikeStrtod(t *testing.T) {
	for v, want := range map[string]float64{"0.5": 0.5, " \t0.25": 0.25, "1e-1x": 0.1, ".5": 0.5, "-1": -1, "half": 0, "": 0, "1.": 1} {
		if got := filterRatio(v); got != want {
			t.Errorf("filterRatio(%q) = %v, want %v", v, got, want)
		}
	}
}
