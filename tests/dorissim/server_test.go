package dorissim

import (
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"math/big"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	_ "github.com/go-sql-driver/mysql"
	"github.com/shopspring/decimal"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func startSim(t *testing.T, cfg Config) *Server {
	t.Helper()
	cfg.Password = "pw"
	s, err := Start(testCtx(t), cfg)
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

const allTypesDDL = "CREATE TABLE `db1`.`all_types` (\n" +
	"  id BIGINT NOT NULL, c_bool BOOLEAN, c_tiny TINYINT, c_small SMALLINT, c_int INT, c_large LARGEINT,\n" +
	"  c_float FLOAT, c_double DOUBLE, c_dec DECIMAL(10, 2), c_date DATE, c_dt DATETIME, c_dt3 DATETIME(3), c_dt6 DATETIME(6),\n" +
	"  c_char CHAR(4), c_varchar VARCHAR(16), c_string STRING, c_json JSON,\n" +
	"  c_array ARRAY<INT>, c_map MAP<STRING, INT>, c_struct STRUCT<a:INT, b:STRING>\n" +
	") UNIQUE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 2\n" +
	"PROPERTIES (\"replication_num\" = \"1\", \"binlog.enable\" = \"true\", \"binlog.format\" = \"ROW\", \"binlog.need_historical_value\" = \"true\")"

func seedAllTypes(t *testing.T, s *Server) {
	t.Helper()
	ctx := testCtx(t)
	for _, stmt := range []string{
		"CREATE DATABASE db1",
		allTypesDDL,
		"INSERT INTO `db1`.`all_types` (id) VALUES (2)",
	} {
		if err := s.Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	// Nested values go through the store: SQL literal support is the engine's concern.
	large, _ := new(big.Int).SetString("170141183460469231731687303715884105727", 10)
	ts := time.Date(2026, 9, 14, 10, 5, 6, 123456000, time.UTC)
	tx := s.Store().Begin()
	row := []any{int64(1), true, int8(-8), int16(-16), int32(-32), large, float32(1.5), 2.25, decimal.RequireFromString("12.30"),
		time.Date(2026, 9, 14, 0, 0, 0, 0, time.UTC), ts.Truncate(time.Second), ts.Truncate(time.Millisecond), ts,
		"ab", "vc", "str", `{"k":1}`, []any{int32(1), int32(2)},
		storage.MapValue{Keys: []any{"x"}, Values: []any{int32(1)}}, []any{int32(7), "seven"}}
	if err := tx.Insert("db1", "all_types", row); err != nil {
		t.Fatalf("insert all types: %v", err)
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatalf("commit all types: %v", err)
	}
}

func flightLogin(t *testing.T, addr string, creds credentials.TransportCredentials) (*flightsql.Client, context.Context) {
	t.Helper()
	if creds == nil {
		creds = insecure.NewCredentials()
	}
	c, err := flightsql.NewClient(addr, nil, nil, grpc.WithTransportCredentials(creds))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, err := c.Client.AuthenticateBasicToken(testCtx(t), "root", "pw")
	if err != nil {
		t.Fatalf("handshake: %v", err)
	}
	return c, ctx
}

// flightRead executes sql on the FE and reads the endpoint at its location.
func flightRead(t *testing.T, c *flightsql.Client, ctx context.Context, sql string, creds credentials.TransportCredentials) (*arrow.Schema, int64, error) {
	t.Helper()
	info, err := c.Execute(ctx, sql)
	if err != nil {
		return nil, 0, err
	}
	uri := info.Endpoint[0].Location[0].Uri
	addr := uri[strings.Index(uri, "://")+3:]
	if creds == nil {
		creds = insecure.NewCredentials()
	}
	be, err := flightsql.NewClient(addr, nil, nil, grpc.WithTransportCredentials(creds))
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	r, err := be.DoGet(ctx, info.Endpoint[0].Ticket)
	if err != nil {
		return nil, 0, err
	}
	defer r.Release()
	var n int64
	for r.Next() {
		n += r.RecordBatch().NumRows()
	}
	return r.Schema(), n, r.Err()
}

func TestFlightReadsEveryType(t *testing.T) {
	s := startSim(t, Config{})
	seedAllTypes(t, s)
	c, ctx := flightLogin(t, s.FlightAddr(), nil)
	schema, n, err := flightRead(t, c, ctx, "/* ApplicationName=test */ SELECT * FROM `db1`.`all_types`", nil)
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Fatalf("rows %d", n)
	}
	want := []string{"int64", "bool", "int8", "int16", "int32", "utf8", "float32", "float64", "decimal(10, 2)", "date32",
		"timestamp[s]", "timestamp[ms]", "timestamp[us]", "utf8", "utf8", "utf8", "utf8",
		"list<item: int32, nullable>", "map<utf8, int32, items_nullable>", "struct<a: int32 nullable, b: utf8 nullable>"}
	for i, f := range schema.Fields() {
		if i < len(want) && f.Type.String() != want[i] {
			t.Errorf("%s: %s, want %s", f.Name, f.Type, want[i])
		}
	}
	_, n, err = flightRead(t, c, ctx, "SELECT id FROM `db1`.`all_types` WHERE id > 100", nil)
	if err != nil || n != 0 {
		t.Fatalf("empty read: %d %v", n, err)
	}
}

func TestFlightErrorMapping(t *testing.T) {
	s := startSim(t, Config{})
	seedAllTypes(t, s)
	c, ctx := flightLogin(t, s.FlightAddr(), nil)
	_, err := c.Execute(ctx, "SELECT nope FROM `db1`.`all_types`")
	if status.Code(err) != codes.Internal || !strings.Contains(err.Error(), "get flight info statement failed") {
		t.Fatalf("internal error: %v", err)
	}
	s.SetFaults(Faults{IncrVisibleWaitTimeouts: 1})
	var trl metadata.MD
	_, err = c.Execute(ctx, "SELECT * FROM `db1`.`all_types`@incr('startTimestamp' = '2020-01-01 00:00:00', "+
		"'endTimestamp' = '2020-01-02 00:00:00', 'incrementType' = 'DETAIL')", grpc.Trailer(&trl))
	if status.Code(err) != codes.Unavailable || len(trl.Get("doris-error-code")) == 0 || trl.Get("doris-error-code")[0] != "5101" ||
		trl.Get("doris-error-name")[0] != "ERR_INCR_VISIBLE_WAIT_TIMEOUT" {
		t.Fatalf("5101: %v trailers %v", err, trl)
	}
	far := time.Now().UTC().Add(24 * time.Hour).Format("2006-01-02 15:04:05")
	trl = nil
	_, err = c.Execute(ctx, "SELECT * FROM `db1`.`all_types`@incr('startTimestamp' = '2020-01-01 00:00:00', "+
		"'endTimestamp' = '"+far+"', 'incrementType' = 'DETAIL')", grpc.Trailer(&trl))
	if status.Code(err) != codes.Unavailable || len(trl.Get("doris-error-code")) == 0 || trl.Get("doris-error-code")[0] != "5100" {
		t.Fatalf("5100: %v trailers %v", err, trl)
	}
}

func httpDo(t *testing.T, s *Server, method, path, body string, hdr map[string]string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(testCtx(t), method, "http://"+s.HTTPAddr()+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth("root", "pw")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, data
}

func TestHTTPAndMySQLEndToEnd(t *testing.T) {
	s := startSim(t, Config{})
	seedAllTypes(t, s)
	code, data := httpDo(t, s, "GET", "/api/tso", "", nil)
	var env struct {
		Code int
		Data map[string]int64
	}
	json.Unmarshal(data, &env)
	if code != 200 || env.Code != 0 || env.Data["current_tso"]>>18 != env.Data["current_tso_physical_time"] {
		t.Fatalf("tso %d %s", code, data)
	}
	_, data = httpDo(t, s, "POST", "/api/query/default_cluster/information_schema", `{"stmt":"show frontends"}`, nil)
	_, flightPort, _ := net.SplitHostPort(s.FlightAddr())
	if !strings.Contains(string(data), "ArrowFlightSqlPort") || !strings.Contains(string(data), flightPort) {
		t.Fatalf("show frontends %s", data)
	}
	_, data = httpDo(t, s, "GET", "/api/db1/all_types/_schema", "", nil)
	if !strings.Contains(string(data), `"keysType":"UNIQUE_KEYS"`) || !strings.Contains(string(data), `"precision":"10","scale":"2"`) {
		t.Fatalf("schema %s", data)
	}
	_, data = httpDo(t, s, "POST", "/api/db1/all_types/_query_plan", "{\"sql\":\"select id from `db1`.`all_types`\"}", nil)
	if !strings.Contains(string(data), `"status":200`) || !strings.Contains(string(data), `"routings"`) {
		t.Fatalf("query plan %s", data)
	}
	code, data = httpDo(t, s, "PUT", "/api/db1/all_types/_stream_load", "10\t1\n11\t0\n",
		map[string]string{"Expect": "100-continue", "label": "seed-1", "columns": "id,c_bool"})
	if code != 200 || !strings.Contains(string(data), `"Status": "Success"`) || !strings.Contains(string(data), `"NumberLoadedRows": 2`) {
		t.Fatalf("stream load %d %s", code, data)
	}
	db, err := sql.Open("mysql", "root:pw@tcp("+s.MySQLAddr()+")/db1")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRowContext(testCtx(t), "SELECT COUNT(*) FROM all_types").Scan(&n); err != nil || n != 4 {
		t.Fatalf("mysql count %d %v", n, err)
	}
}

func TestFlightSessionVariablesPerToken(t *testing.T) {
	s := startSim(t, Config{})
	c, ctx := flightLogin(t, s.FlightAddr(), nil)
	info, err := c.Execute(ctx, "SET time_zone = '+08:00'")
	if err != nil {
		t.Fatal(err)
	}
	if uri := info.Endpoint[0].Location[0].Uri; uri != "grpc+tcp://"+s.FlightAddr() {
		t.Fatalf("SET endpoint %s, want the FE", uri)
	}
	r, err := c.DoGet(ctx, info.Endpoint[0].Ticket)
	if err != nil {
		t.Fatal(err)
	}
	for r.Next() {
	}
	r.Release()
	zone := func(c *flightsql.Client, ctx context.Context) string {
		info, err := c.Execute(ctx, "SELECT @@time_zone")
		if err != nil {
			t.Fatal(err)
		}
		be, _ := flightsql.NewClient(s.BEFlightAddr(), nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
		defer be.Close()
		r, err := be.DoGet(ctx, info.Endpoint[0].Ticket)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Release()
		if !r.Next() {
			t.Fatalf("no rows: %v", r.Err())
		}
		return r.RecordBatch().Column(0).ValueStr(0)
	}
	if z := zone(c, ctx); z != "+08:00" {
		t.Fatalf("same token time_zone %q", z)
	}
	c2, ctx2 := flightLogin(t, s.FlightAddr(), nil)
	if z := zone(c2, ctx2); z == "+08:00" {
		t.Fatal("time_zone leaked to another token")
	}
}
