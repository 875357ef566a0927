package input

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
)

// TestBinlogProblem: which tables @incr can follow, and that a refusal
// names the table and the fix.
func TestBinlogProblem(t *testing.T) {
	rowDup := doris.TableProperties{KeysType: "DUP_KEYS", BinlogEnabled: true, BinlogFormat: "ROW"}
	mow := doris.TableProperties{KeysType: "UNIQUE_KEYS", MergeOnWrite: true, BinlogEnabled: true, BinlogFormat: "ROW", NeedHistoricalValue: true}
	change := func(p doris.TableProperties, f func(*doris.TableProperties)) *doris.TableProperties { f(&p); return &p }
	for _, tc := range []struct {
		name  string
		incr  string
		props *doris.TableProperties
		want  []string // empty: followable
	}{
		{"duplicate key", "DETAIL", &rowDup, nil},
		{"merge-on-write unique key", "MIN_DELTA", &mow, nil},
		{"min_delta on duplicate key", "MIN_DELTA", &rowDup, nil},
		{"detail without before-images", "DETAIL", change(mow, func(p *doris.TableProperties) { p.NeedHistoricalValue = false }), nil},
		{"no binlog", "DETAIL", change(rowDup, func(p *doris.TableProperties) { p.BinlogEnabled = false }), []string{"has no row binlog", `"binlog.format" = "ROW"`, "scan_mode: snapshot"}},
		{"binlog not ROW", "DETAIL", change(rowDup, func(p *doris.TableProperties) { p.BinlogFormat = "STATEMENT" }), []string{"has no row binlog"}},
		{"aggregate key", "DETAIL", change(rowDup, func(p *doris.TableProperties) { p.KeysType = "AGG_KEYS" }), []string{"is a AGG_KEYS table", "merge-on-write UNIQUE KEY"}},
		{"merge-on-read unique key", "DETAIL", change(mow, func(p *doris.TableProperties) { p.MergeOnWrite = false }), []string{"is a UNIQUE_KEYS table"}},
		{"min_delta without before-images", "MIN_DELTA", change(mow, func(p *doris.TableProperties) { p.NeedHistoricalValue = false }),
			[]string{"binlog.need_historical_value=false", "binlog_increment_type detail or append_only"}},
	} {
		got := binlogProblem(&Config{IncrementType: tc.incr}, "shop.orders", tc.props)
		if len(tc.want) == 0 {
			if got != "" {
				t.Errorf("%s: %q, want followable", tc.name, got)
			}
			continue
		}
		if !strings.Contains(got, "shop.orders") {
			t.Errorf("%s: %q does not name the table", tc.name, got)
		}
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q does not say %q", tc.name, got, w)
			}
		}
	}
}

const simUser, simPassword = "root", "pw"

// simTable starts a simulated Doris with the given statements run and
// returns it with a tableInfo for db.table over its REST API.
func simTable(t *testing.T, db, table string, stmts ...string) (*dorissim.Server, *tableInfo, *logSink) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	s, err := dorissim.Start(ctx, dorissim.Config{User: simUser, Password: simPassword})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	for _, stmt := range stmts {
		if err := s.Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	log, sink := captureLogger(t)
	conf := &Config{FENodes: []string{s.HTTPAddr()}, Username: simUser, Password: simPassword, Retries: 1,
		ConnectTimeout: 2 * time.Second, ReadTimeout: 5 * time.Second}
	rest, err := doris.NewClient(doris.ClientConfig{FENodes: conf.FENodes, Username: conf.Username, Password: conf.Password,
		Retries: conf.Retries, ConnectTimeout: conf.ConnectTimeout, ReadTimeout: conf.ReadTimeout, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	return s, &tableInfo{name: newTableName(db, table), c: &conn{conf: conf, log: log, rest: rest}}, sink
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestTablePropertiesRefresh: the DDL facts are read once and kept, read
// again on request, and kept when a re-read fails.
func TestTablePropertiesRefresh(t *testing.T) {
	s, ti, sink := simTable(t, "shop", "orders", "CREATE DATABASE shop",
		"CREATE TABLE shop.orders (id BIGINT, ts DATETIME(3)) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1 "+
			`PROPERTIES ("binlog.enable" = "true", "binlog.format" = "ROW", "binlog.ttl_seconds" = "3600")`)
	ctx := testCtx(t)
	if p, err := ti.properties(ctx, false); err != nil || p.TTLSeconds != 3600 {
		t.Fatalf("first read: %+v, %v; want ttl 3600", p, err)
	}
	if p := ti.datetimePrecision(); p["ts"] != 3 {
		t.Fatalf("datetime precision %v, want ts: 3", p)
	}
	if err := s.Exec(ctx, `ALTER TABLE shop.orders SET ("binlog.ttl_seconds" = "7200")`); err != nil {
		t.Fatal(err)
	}
	if p, err := ti.properties(ctx, false); err != nil || p.TTLSeconds != 3600 {
		t.Fatalf("cached read: ttl %v, %v; want the kept 3600", p, err)
	}
	if p, err := ti.properties(ctx, true); err != nil || p.TTLSeconds != 7200 {
		t.Fatalf("refresh: %+v, %v; want ttl 7200", p, err)
	}
	// Older than propsRefreshInterval: read again without being asked.
	if err := s.Exec(ctx, `ALTER TABLE shop.orders SET ("binlog.ttl_seconds" = "900")`); err != nil {
		t.Fatal(err)
	}
	ti.mu.Lock()
	ti.propAt = time.Now().Add(-propsRefreshInterval)
	ti.mu.Unlock()
	if p, err := ti.properties(ctx, false); err != nil || p.TTLSeconds != 900 {
		t.Fatalf("stale read: %+v, %v; want ttl 900", p, err)
	}
	s.SetFaults(dorissim.Faults{Refuse: "http", RefuseFor: time.Minute})
	if p, err := ti.properties(ctx, true); err != nil || p.TTLSeconds != 900 {
		t.Fatalf("refresh with the FE down: %+v, %v; want the kept properties", p, err)
	}
	if n := len(sink.Lines("WARN", "keeping the previous ones")); n != 1 {
		t.Errorf("a failed refresh logged %d warnings, want 1", n)
	}
	if _, err := ti.refreshProperties(ctx); err == nil || !strings.Contains(err.Error(), "table properties of shop.orders") {
		t.Errorf("refreshProperties with the FE down: %v, want an error naming the table", err)
	}
	s.ClearFaults()
}

// TestTabletRange: a table dropped and created again under the same name
// has only tablet ids above the old range, which is how a re-creation is
// told apart from the same table.
func TestTabletRange(t *testing.T) {
	const ddl = "CREATE TABLE shop.orders (id BIGINT) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 3 " +
		`PROPERTIES ("binlog.enable" = "true", "binlog.format" = "ROW")`
	s, ti, _ := simTable(t, "shop", "orders", "CREATE DATABASE shop", ddl)
	ctx := testCtx(t)
	lo, hi, err := ti.tabletRange(ctx)
	if err != nil || lo <= 0 || hi <= lo { // three buckets: three tablets
		t.Fatalf("tablet range %d..%d, %v; want the lowest and highest of three ids", lo, hi, err)
	}
	for _, stmt := range []string{"DROP TABLE shop.orders", ddl} {
		if err := s.Exec(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	lo2, hi2, err := ti.tabletRange(ctx)
	if err != nil || lo2 <= hi || hi2 <= lo2 {
		t.Fatalf("after re-creation: range %d..%d, %v; want every id above %d", lo2, hi2, err, hi)
	}
	if err := s.Exec(ctx, "DROP TABLE shop.orders"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ti.tabletRange(ctx); err == nil || !strings.Contains(err.Error(), "query plan for shop.orders") {
		t.Fatalf("a dropped table: %v, want an error naming the table", err)
	}
}
