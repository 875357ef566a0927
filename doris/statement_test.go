package doris

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
)

// statementFE answers statements through fn(stmt) and /api/tso with phys.
func statementFE(t *testing.T, phys int64, fn func(stmt string) string) *fe {
	return newFE(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/api/tso":
			writeJSON(w, tsoBody(phys))
		case r.URL.Path == statementPath && r.Method == http.MethodPost:
			if ct := r.Header.Get("Content-Type"); ct != "application/json;charset=UTF-8" {
				http.Error(w, "content type "+ct, http.StatusBadRequest)
				return
			}
			raw, _ := io.ReadAll(r.Body)
			var req struct {
				Stmt string `json:"stmt"`
			}
			if err := json.Unmarshal(raw, &req); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			writeJSON(w, fn(req.Stmt))
		default:
			http.NotFound(w, r)
		}
	})
}

func resultSet(meta string, rows string) string {
	return `{"code":0,"msg":"success","data":{"type":"result_set","meta":` + meta + `,"data":` + rows + `,"time":3}}`
}

func TestStatementResultCells(t *testing.T) {
	var got atomic.Value
	f := statementFE(t, 1, func(stmt string) string {
		got.Store(stmt)
		return resultSet(`[{"name":"a","type":"CHAR"},{"name":"B","type":"BIGINT"}]`, `[["x",461373440032243713],[null,2]]`)
	})
	c := testClient(t, ClientConfig{Retries: 1}, f.addr())
	res, err := Statement(testCtx(t), c, "select 'x', 1")
	if err != nil {
		t.Fatal(err)
	}
	if got.Load() != "select 'x', 1" {
		t.Fatalf("stmt sent %q", got.Load())
	}
	if res.Type != "result_set" || len(res.Columns) != 2 || res.Columns[1].Type != "BIGINT" || len(res.Rows) != 2 {
		t.Fatalf("result %+v", res)
	}
	if res.ColumnIndex("b") != 1 || res.ColumnIndex("zz") != -1 {
		t.Fatal("ColumnIndex is not case-insensitive")
	}
	if v, ok := res.CellText(0, 1); !ok || v != "461373440032243713" {
		t.Fatalf("big number lost precision: %q", v)
	}
	if _, ok := res.CellText(1, 0); ok {
		t.Fatal("NULL cell reported as text")
	}
	if _, ok := res.CellText(5, 0); ok {
		t.Fatal("out of range cell reported")
	}
}

func TestStatementSQLErrorIsNotRetried(t *testing.T) {
	f := statementFE(t, 1, func(string) string {
		return `{"code":1,"msg":"errCode = 2, detailMessage = Unknown table 'x'","data":null}`
	})
	c := testClient(t, ClientConfig{Retries: 3}, f.addr())
	_, err := Statement(testCtx(t), c, "select * from x")
	if err == nil || !strings.Contains(err.Error(), "Failed to execute Doris statement: errCode = 2, detailMessage = Unknown table 'x'") {
		t.Fatalf("got %v", err)
	}
	var api *APIError
	if !errors.As(err, &api) || api.Code != 1 {
		t.Fatalf("APIError not reachable: %v", err)
	}
	if f.hits.Load() != 1 {
		t.Fatalf("SQL error retried: %d", f.hits.Load())
	}
}

func TestStatementMalformedIsRetried(t *testing.T) {
	f := statementFE(t, 1, func(string) string { return `{"code":0,"data":{"meta":"oops"}}` })
	c := testClient(t, ClientConfig{Retries: 2}, f.addr())
	_, err := Statement(testCtx(t), c, "select 1")
	if err == nil || !strings.Contains(err.Error(), "Invalid Doris statement response") {
		t.Fatalf("got %v", err)
	}
	if f.hits.Load() != 2 {
		t.Fatalf("hits %d", f.hits.Load())
	}
}

func TestParseStatementResponseErrors(t *testing.T) {
	for _, body := range []string{``, `[]`, `{"code":0}`, `{"code":0,"data":{"data":[1]}}`, `{"code":0,"data":{} } x`} {
		if _, err := ParseStatementResponse([]byte(body)); err == nil {
			t.Errorf("%q: expected error", body)
		}
	}
	res, err := ParseStatementResponse([]byte(`{"code":0,"msg":"success","data":{"type":"exec_status","status":{}}}`))
	if err != nil || res.Type != "exec_status" || len(res.Rows) != 0 {
		t.Fatalf("exec_status: %+v %v", res, err)
	}
}

func TestFlightSQLPort(t *testing.T) {
	meta := `[{"name":"Name","type":"CHAR"},{"name":"Host","type":"CHAR"},{"name":"EditLogPort","type":"CHAR"},{"name":"HttpPort","type":"CHAR"},{"name":"QueryPort","type":"CHAR"},{"name":"RpcPort","type":"CHAR"},{"name":"ArrowFlightSqlPort","type":"CHAR"},{"name":"Role","type":"CHAR"}]`
	f := statementFE(t, 1, func(s string) string {
		if s != "show frontends" {
			return `{"code":1,"msg":"unexpected"}`
		}
		return resultSet(meta, `[["fe1","10.0.0.9","9010","8030","9030","9020","29747","FOLLOWER"],["fe2","127.0.0.1","9010","8030","9030","9020",8070,"FOLLOWER"]]`)
	})
	c := testClient(t, ClientConfig{Retries: 1}, f.addr())
	port, err := FlightSQLPort(testCtx(t), c)
	if err != nil {
		t.Fatal(err)
	}
	if port != 8070 {
		t.Fatalf("port %d: want the row of the FE in use", port)
	}
}

func TestFlightSQLPortFromFrontends(t *testing.T) {
	parse := func(body string) *StatementResult {
		res, err := ParseStatementResponse([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := parse(resultSet(`[{"name":"host"},{"name":"arrowflightsqlport"}]`, `[["a","29747"]]`))
	if p, err := FlightSQLPortFromFrontends(res, "unknown"); err != nil || p != 29747 {
		t.Fatalf("row 0 fallback: %d %v", p, err)
	}
	cases := map[string]string{
		resultSet(`[{"name":"Host"}]`, `[["a"]]`):                         "Doris statement result is missing ArrowFlightSqlPort",
		resultSet(`[{"name":"ArrowFlightSqlPort"}]`, `[]`):                "ArrowFlightSqlPort not found",
		resultSet(`[{"name":"ArrowFlightSqlPort"}]`, `[[null]]`):          "ArrowFlightSqlPort not found",
		resultSet(`[{"name":"ArrowFlightSqlPort"}]`, `[["-1"]]`):          "ArrowFlightSqlPort not found",
		resultSet(`[{"name":"ArrowFlightSqlPort"}]`, `[["70000"]]`):       "ArrowFlightSqlPort not found",
		resultSet(`[{"name":"ArrowFlightSqlPort"},{"name":"x"}]`, `[[]]`): "ArrowFlightSqlPort not found",
	}
	for body, want := range cases {
		if _, err := FlightSQLPortFromFrontends(parse(body), ""); err == nil || err.Error() != want {
			t.Errorf("%s: want %q, got %v", body, want, err)
		}
	}
}
