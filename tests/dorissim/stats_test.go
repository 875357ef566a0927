package dorissim

import (
	"database/sql"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestRequestStatsCountWhatArrives drives each listener a known number of
// times and reads the counts back over HTTP and from Stats.
func TestRequestStatsCountWhatArrives(t *testing.T) {
	s := startSim(t, Config{})
	seedAllTypes(t, s)
	for range 3 {
		if code, _ := httpDo(t, s, "GET", "/api/tso", "", nil); code != 200 {
			t.Fatalf("tso: %d", code)
		}
	}
	// A refused login is a request the FE received all the same.
	req, _ := http.NewRequestWithContext(testCtx(t), "GET", "http://"+s.HTTPAddr()+"/api/db1/all_types/_schema", nil)
	req.SetBasicAuth("root", "wrong")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	httpDo(t, s, "GET", "/no/such/route", "", nil)
	c, ctx := flightLogin(t, s.FlightAddr(), nil)
	for range 2 {
		if _, n, err := flightRead(t, c, ctx, "SELECT id FROM `db1`.`all_types`", nil); err != nil || n != 2 {
			t.Fatalf("flight read: rows=%d err=%v", n, err)
		}
	}
	httpDo(t, s, "POST", "/api/_sim/faults", `{}`, nil)
	db, err := sql.Open("mysql", "root:pw@tcp("+s.MySQLAddr()+")/db1")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.PingContext(testCtx(t)); err != nil {
		t.Fatalf("mysql ping: %v", err)
	}
	for range 2 {
		if _, err := db.ExecContext(testCtx(t), "SELECT 1"); err != nil {
			t.Fatalf("mysql statement: %v", err)
		}
	}

	code, data := httpDo(t, s, "GET", "/api/_sim/stats", "", nil)
	if code != 200 {
		t.Fatalf("stats: %d %s", code, data)
	}
	var env struct {
		Code int   `json:"code"`
		Data Stats `json:"data"`
	}
	if err := json.Unmarshal(data, &env); err != nil || env.Code != 0 {
		t.Fatalf("stats answer %s: %v", data, err)
	}
	got := env.Data
	want := map[string]int64{"GET /api/tso": 3, "GET /api/{db}/{table}/_schema": 1, "unmatched": 1}
	for k, v := range want {
		if got.HTTP[k] != v {
			t.Errorf("http[%q] = %d, want %d (all: %v)", k, got.HTTP[k], v, got.HTTP)
		}
	}
	for k := range got.HTTP {
		if strings.Contains(k, "_sim") {
			t.Errorf("simulator endpoint counted: %q", k)
		}
	}
	if got.FEFlight["Handshake"] != 1 || got.FEFlight["GetFlightInfo"] != 2 || got.BEFlight["DoGet"] != 2 || got.FEFlight["DoGet"] != 0 {
		t.Errorf("flight counts fe=%v be=%v, want 1 Handshake and 2 GetFlightInfo on the FE, 2 DoGet on the BE", got.FEFlight, got.BEFlight)
	}
	if got.MySQLConnections != 1 {
		t.Errorf("mysql connections = %d, want 1", got.MySQLConnections)
	}
	if got.MySQLStatements != 2 {
		t.Errorf("mysql statements = %d, want 2 (a ping runs none)", got.MySQLStatements)
	}
	if n := got.FERequests(); n != 3+1+1+1+2 {
		t.Errorf("FERequests = %d, want 8", n)
	}
	if s.Stats().HTTP["GET /api/tso"] != 3 {
		t.Errorf("Server.Stats disagrees: %v", s.Stats().HTTP)
	}
}

func TestFERequestsLeaveOutBEStreamLoads(t *testing.T) {
	st := Stats{
		HTTP:     map[string]int64{"PUT /api/{db}/{table}/_stream_load": 2, "PUT /api/_be/{db}/{table}/_stream_load": 2, "GET /api/tso": 1},
		FEFlight: map[string]int64{"GetFlightInfo": 4},
		BEFlight: map[string]int64{"DoGet": 4},
	}
	if n := st.FERequests(); n != 7 {
		t.Fatalf("FERequests = %d, want 7", n)
	}
}

// TestRequestStatsCountIncrQueries: of the FE's GetFlightInfo calls, those
// running an @incr query are counted apart, whatever the case of the
// keyword; a snapshot read and a failed @incr are counted as what arrived.
func TestRequestStatsCountIncrQueries(t *testing.T) {
	s := startSim(t, Config{})
	mustExecAll(t, s, "CREATE DATABASE sales",
		"CREATE TABLE sales.w (id BIGINT, qty INT) UNIQUE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 2 "+
			`PROPERTIES ("enable_unique_key_merge_on_write" = "true", "binlog.enable" = "true", "binlog.format" = "ROW", "binlog.need_historical_value" = "true")`,
		"INSERT INTO sales.w VALUES (1, 1)")
	fs := newFlightSession(t, s)
	before := s.Stats()
	for _, q := range []string{
		"SELECT `id` FROM `sales`.`w`@incr('startTimestamp' = '0', 'incrementType' = 'DETAIL')",
		"SELECT `id` FROM `sales`.`w`@INCR('startTimestamp' = '0', 'incrementType' = 'DETAIL')",
		"SELECT `id` FROM `sales`.`w`",
	} {
		if _, err := fs.text(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := fs.exec("SELECT `id` FROM `sales`.`w`@incr('incrementType' = 'NO_SUCH_TYPE')"); err == nil {
		t.Fatal("an @incr query with an unknown incrementType succeeded")
	}
	after := s.Stats()
	if n := after.FEIncrQueries - before.FEIncrQueries; n != 3 {
		t.Errorf("FEIncrQueries counted %d, want 3 (two reads and one refused)", n)
	}
	if n := after.FEFlight["GetFlightInfo"] - before.FEFlight["GetFlightInfo"]; n != 4 {
		t.Errorf("GetFlightInfo counted %d, want 4", n)
	}
	if after.BEFlight["GetFlightInfo"] != 0 {
		t.Errorf("BE GetFlightInfo counted: %v", after.BEFlight)
	}
}
