package dorissim

import (
	"database/sql"
	"encoding/json"
	"net"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestHTTPFaultsAndRefuse(t *testing.T) {
	s := startSim(t, Config{})
	seedAllTypes(t, s)
	code, data := httpDo(t, s, "POST", "/api/_sim/faults", `{"tso_errors":1,"fail_get_flight_info":1,"cut_do_get_after_rows":1}`, nil)
	if code != 200 {
		t.Fatalf("faults %d %s", code, data)
	}
	if code, _ := httpDo(t, s, "GET", "/api/tso", "", nil); code != 500 {
		t.Fatalf("tso fault: %d", code)
	}
	if code, _ := httpDo(t, s, "GET", "/api/tso", "", nil); code != 200 {
		t.Fatalf("tso after fault: %d", code)
	}
	c, ctx := flightLogin(t, s.FlightAddr(), nil)
	if _, _, err := flightRead(t, c, ctx, "SELECT id FROM `db1`.`all_types`", nil); status.Code(err) != codes.Unavailable {
		t.Fatalf("GetFlightInfo fault: %v", err)
	}
	if _, n, err := flightRead(t, c, ctx, "SELECT id FROM `db1`.`all_types`", nil); err == nil || n != 1 {
		t.Fatalf("cut fault: rows=%d err=%v", n, err)
	}
	if _, n, err := flightRead(t, c, ctx, "SELECT id FROM `db1`.`all_types`", nil); err != nil || n != 2 {
		t.Fatalf("after faults: rows=%d err=%v", n, err)
	}
	if code, _ := httpDo(t, s, "POST", "/api/_sim/faults", `{"refuse":"nowhere","refuse_seconds":1}`, nil); code != 400 {
		t.Fatalf("bad refuse accepted: %d", code)
	}
	for _, name := range []string{"flight", "mysql", "http", "be_flight"} {
		refuseAndRecover(t, s, name)
	}
	c2, ctx2 := flightLogin(t, s.FlightAddr(), nil)
	if _, n, err := flightRead(t, c2, ctx2, "SELECT id FROM `db1`.`all_types`", nil); err != nil || n != 2 {
		t.Fatalf("after refuse: rows=%d err=%v", n, err)
	}
	db, err := sql.Open("mysql", "root:pw@tcp("+s.MySQLAddr()+")/db1")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRowContext(testCtx(t), "SELECT COUNT(*) FROM all_types").Scan(&n); err != nil || n != 2 {
		t.Fatalf("mysql after refuse: %d %v", n, err)
	}
	s.SetFaults(Faults{Latency: 50 * time.Millisecond})
	start := time.Now()
	httpDo(t, s, "GET", "/api/tso", "", nil)
	if time.Since(start) < 50*time.Millisecond {
		t.Fatal("HTTP latency fault not applied")
	}
	if code, _ := httpDo(t, s, "DELETE", "/api/_sim/faults", "", nil); code != 200 || s.faults.Latency() != 0 {
		t.Fatalf("clear faults: %d", code)
	}
}

func TestFaultsJSON(t *testing.T) {
	var f Faults
	if err := json.Unmarshal([]byte(`{"latency_ms":250,"refuse":"mysql","refuse_seconds":1.5,"fail_do_get":2,"incr_memory_pressure":3}`), &f); err != nil {
		t.Fatal(err)
	}
	if f.Latency != 250*time.Millisecond || f.RefuseFor != 1500*time.Millisecond || f.Refuse != "mysql" || f.FailDoGet != 2 || f.IncrMemoryPressure != 3 {
		t.Fatalf("%+v", f)
	}
	out, _ := json.Marshal(f)
	if !strings.Contains(string(out), `"latency_ms":250`) || !strings.Contains(string(out), `"refuse_seconds":1.5`) ||
		!strings.Contains(string(out), `"incr_memory_pressure":3`) {
		t.Fatalf("marshal %s", out)
	}
	if err := json.Unmarshal([]byte(`{"refuse":"http"}`), &f); err == nil {
		t.Fatal("refuse without duration accepted")
	}
}

func refuseAndRecover(t *testing.T, s *Server, name string) {
	t.Helper()
	addr := map[string]string{"flight": s.FlightAddr(), "mysql": s.MySQLAddr(), "http": s.HTTPAddr(), "be_flight": s.BEFlightAddr()}[name]
	s.SetFaults(Faults{Refuse: name, RefuseFor: 300 * time.Millisecond})
	if conn, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		conn.Close()
		t.Fatalf("%s listener accepted while refusing", name)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			conn.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s listener did not come back: %v", name, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
