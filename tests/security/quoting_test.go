package security

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// The names need backticks in SQL (spaces, hyphen, a backtick that must be
// doubled), escaping in REST paths (space, non-ASCII) and care in string
// literals (both quote characters). table_identifier takes them
// backtick-quoted, as in SQL.
const (
	oddDB    = "odd db"
	oddTable = "we'ird\"t`â-ble"
)

// TestQuotedIdentifiers streams a table with awkward names: every REST path,
// SHOW CREATE TABLE, the snapshot and the @incr queries must quote them.
func TestQuotedIdentifiers(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	full := harness.QuoteIdent(oddDB) + "." + harness.QuoteIdent(oddTable)
	harness.Exec(t, srv, "CREATE DATABASE "+harness.QuoteIdent(oddDB),
		"CREATE TABLE "+full+" (\n  `id` BIGINT NOT NULL,\n  `name` VARCHAR(64)\n) UNIQUE KEY(`id`)\nDISTRIBUTED BY HASH(`id`) BUCKETS 2\n"+
			"PROPERTIES (\"replication_num\" = \"1\", \"binlog.enable\" = \"true\", \"binlog.format\" = \"ROW\", \"binlog.need_historical_value\" = \"true\")")
	var vals []string
	for i := 1; i <= 20; i++ {
		vals = append(vals, fmt.Sprintf("(%d, 'snap-%d')", i, i))
	}
	harness.Exec(t, srv, "INSERT INTO "+full+" (`id`, `name`) VALUES "+strings.Join(vals, ", "))
	time.Sleep(1100 * time.Millisecond)

	in := inputYAML(srv.HTTPAddr(), fmt.Sprintf("%q", full), "", "scan_mode: initial", "batch_size: 7")
	col := &harness.Collector{}
	harness.RunStream(t, harness.StreamConfig{Input: in, Resources: harness.MemoryCache}, col)
	col.WaitFor(t, 60*time.Second, "the snapshot", func(evs []harness.Event) bool { return len(evs) >= 20 })
	harness.Exec(t, srv,
		"INSERT INTO "+full+" (`id`, `name`) VALUES (21, 'it''s new'), (22, 'x')",
		"UPDATE "+full+" SET `name` = 'upd' WHERE `id` = 3",
		"DELETE FROM "+full+" WHERE `id` = 4")
	want := harness.TableState(t, srv, oddDB, oddTable, "id", "id", "name")
	evs := col.WaitFor(t, 60*time.Second, "the binlog", func(evs []harness.Event) bool {
		got, err := harness.Replay(evs, "id")
		return err == nil && harness.Diff(want, got) == ""
	})
	for _, ev := range evs {
		if ev.Database != oddDB || ev.Table != oddTable {
			t.Fatalf("event names %q.%q, want %q.%q", ev.Database, ev.Table, oddDB, oddTable)
		}
	}
}

// TestScanTimestampInjection: scan_timestamp reaches SQL, so anything but a
// strict yyyy-MM-dd HH:mm:ss is rejected when the config is parsed, with an
// error naming the field.
func TestScanTimestampInjection(t *testing.T) {
	for _, ts := range []string{
		"2026-01-01 00:00:00' OR '1'='1",
		"2026-01-01 00:00:00'); DROP TABLE t; --",
		"2026-01-01T00:00:00",
		"2026-1-1 0:0:0",
		"2026-02-30 00:00:00",
	} {
		b := service.NewStreamBuilder()
		_ = b.SetLoggerYAML("level: NONE")
		in := inputYAML("127.0.0.1:8030", "db.t", "", "scan_mode: from-timestamp", fmt.Sprintf("scan_timestamp: %q", ts))
		err := b.AddResourcesYAML(harness.MemoryCache)
		if err == nil {
			err = b.AddInputYAML(in)
		}
		if err == nil {
			err = b.AddConsumerFunc(func(_ context.Context, _ *service.Message) error { return nil })
		}
		if err == nil {
			_, err = b.Build()
		}
		if err == nil || !strings.Contains(err.Error(), "scan_timestamp") {
			t.Errorf("scan_timestamp %q: got %v, want an error naming scan_timestamp", ts, err)
		}
	}
}
