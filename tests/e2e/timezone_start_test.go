package e2e

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

const tzBinlogProps = `"replication_num" = "1", "binlog.enable" = "true", "binlog.format" = "ROW", "binlog.need_historical_value" = "true"`

// wallText renders a DATETIME cell of srv.Query as yyyy-MM-dd HH:mm:ss.
func wallText(t *testing.T, v any) string {
	t.Helper()
	switch v := v.(type) {
	case time.Time:
		return v.Format(utcLayout)
	case string:
		return v[:19]
	case []byte:
		return string(v[:19])
	}
	t.Fatalf("DATETIME cell is %T", v)
	return ""
}

// An FE in Asia/Shanghai end to end: scan_timestamp is FE time, the offset
// table's offset_timestamp is FE time (close to the FE's NOW()), and
// DATETIME bodies are the stored wall clock.
func TestShanghaiFromTimestampAndOffsetTable(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{TimeZone: "Asia/Shanghai"})
	harness.Exec(t, srv, "CREATE DATABASE tz", "CREATE DATABASE ops",
		"CREATE TABLE tz.sh (`id` BIGINT NOT NULL, `dt` DATETIME, `dt3` DATETIME(3)) UNIQUE KEY(`id`) DISTRIBUTED BY HASH(`id`) BUCKETS 2 PROPERTIES ("+tzBinlogProps+")",
		"CREATE TABLE ops.offsets (\n  consumer_id VARCHAR(256) NOT NULL,\n  offset_timestamp DATETIME NOT NULL,\n  update_time DATETIMEV2(3) NOT NULL)\nUNIQUE KEY(consumer_id) DISTRIBUTED BY HASH(consumer_id) BUCKETS 1\nPROPERTIES (\"replication_num\" = \"1\")",
		"INSERT INTO tz.sh VALUES (1, '2026-01-01 00:00:00', '2026-01-01 00:00:00.000')")
	time.Sleep(1100 * time.Millisecond)
	start := harness.Now(t, srv) // Shanghai wall clock, after row 1's second
	harness.Exec(t, srv, "INSERT INTO tz.sh VALUES (2, '2026-03-29 02:30:00', '2026-11-01 01:30:00.125'), (3, '1999-12-31 23:59:59', NULL)")

	logs := &harness.LogCapture{}
	col := &harness.Collector{}
	in := harness.InputYAML(srv, "tz.sh", "scan_mode: from-timestamp", "scan_timestamp: \""+start+"\"",
		"jdbc_url: jdbc:mysql://"+srv.MySQLAddr(), "binlog_offset_table: ops.offsets", "binlog_consumer_id: tz-consumer")
	harness.RunStream(t, harness.StreamConfig{Input: in, Resources: harness.MemoryCache, Logs: logs}, col)
	evs := col.WaitFor(t, 30*time.Second, "the rows after scan_timestamp", func(evs []harness.Event) bool { return len(evs) >= 2 })
	want := map[string][2]any{"2": {"2026-03-29 02:30:00", "2026-11-01 01:30:00.125"}, "3": {"1999-12-31 23:59:59", nil}}
	for _, ev := range evs[:2] {
		id := fmt.Sprint(ev.Row["id"])
		w, ok := want[id]
		if !ok {
			t.Fatalf("row %s was committed before scan_timestamp %s (FE time) but delivered", id, start)
		}
		if ev.Row["dt"] != w[0] || ev.Row["dt3"] != w[1] {
			t.Fatalf("row %s: DATETIME values changed: dt %v dt3 %v, want %v %v", id, ev.Row["dt"], ev.Row["dt3"], w[0], w[1])
		}
	}
	startTime, _ := time.Parse(utcLayout, start)
	if lines := logs.Lines(slog.LevelInfo, "Asia/Shanghai is "+startTime.Add(-8*time.Hour).Format(utcLayout)+" UTC"); len(lines) == 0 {
		t.Fatalf("no log line shows scan_timestamp %s in both zones", start)
	}

	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		rows, err := srv.Query(ctx, "SELECT offset_timestamp, NOW() FROM ops.offsets WHERE consumer_id = 'tz-consumer'")
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) == 1 {
			off, now := wallText(t, rows[0][0]), wallText(t, rows[0][1])
			offT, _ := time.Parse(utcLayout, off)
			nowT, _ := time.Parse(utcLayout, now)
			if off > start {
				if d := nowT.Sub(offT); d < 0 || d > 20*time.Second {
					t.Fatalf("offset_timestamp %s is not FE time: the FE's NOW() is %s", off, now)
				}
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the offset row did not move past %s within 30s: %v", start, rows)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// A scan_timestamp the clocks skip (Berlin, 2026-03-29 02:30) is a config
// error naming the field, found at start; nothing is read or stored.
func TestScanTimestampInGapIsConfigError(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{TimeZone: "Europe/Berlin", ClockStart: berlinSpringFwd.Add(2 * time.Hour)})
	harness.CreateTable(t, srv, "tz", "gap", harness.TableOpts{})
	logs := &harness.LogCapture{}
	col := &harness.Collector{}
	in := harness.InputYAML(srv, "tz.gap", "scan_mode: from-timestamp", "scan_timestamp: \"2026-03-29 02:30:00\"")
	harness.RunStream(t, harness.StreamConfig{Input: in, Resources: harness.MemoryCache, Logs: logs}, col)
	deadline := time.Now().Add(20 * time.Second)
	for len(logs.Lines(slog.LevelError, `scan_timestamp "2026-03-29 02:30:00" does not exist in the Doris FE time zone Europe/Berlin`)) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no config error for a scan_timestamp in the gap; logs:\n%s", logs.All())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if n := len(col.Events()); n != 0 {
		t.Fatalf("%d events delivered despite the config error", n)
	}
}

// A start in New York's repeated hour, given as scan_timestamp or carried
// over from a version 1 checkpoint (FE-zone wall times), means the hour's
// first pass: the row committed just before that instant is not read, the
// one just after is. (Taken as UTC, both would be read; taken as the second
// pass, neither.)
func TestStartInRepeatedHourIsEarlierInstant(t *testing.T) {
	for _, via := range []string{"scan_timestamp", "v1 checkpoint"} {
		t.Run(via, func(t *testing.T) {
			first := time.Date(2026, 11, 1, 5, 30, 0, 0, time.UTC) // 01:30:00 EDT, first pass
			srv := harness.StartSim(t, dorissim.Config{TimeZone: "America/New_York", ClockStart: first.Add(-2 * time.Second)})
			harness.CreateTable(t, srv, "tz", "amb", harness.TableOpts{})
			harness.Exec(t, srv, "INSERT INTO tz.amb VALUES (1, 'before', 1, 1.00)")
			waitSimPast(t, srv, first.Add(time.Second))
			harness.Exec(t, srv, "INSERT INTO tz.amb VALUES (2, 'after', 2, 2.00)")

			dir := t.TempDir()
			extra := []string{"checkpoint_cache_key: tzkey"}
			if via == "scan_timestamp" {
				extra = append(extra, "scan_mode: from-timestamp", "scan_timestamp: \"2026-11-01 01:30:00\"")
			} else {
				extra = append(extra, "scan_mode: latest")
				v1 := `{"version":1,"table":"tz.amb","phase":"binlog","window_start":"2026-11-01 01:30:00","seq":3,"saved_at":"2026-11-01T05:30:00Z"}`
				if err := os.WriteFile(filepath.Join(dir, "tzkey"), []byte(v1), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			logs := &harness.LogCapture{}
			col := &harness.Collector{}
			r := harness.RunStream(t, harness.StreamConfig{Input: harness.InputYAML(srv, "tz.amb", extra...),
				Resources: harness.FileCache(dir), Logs: logs}, col)
			evs := col.WaitFor(t, 30*time.Second, "the row after the start", func(evs []harness.Event) bool { return len(evs) >= 1 })
			waitSimPast(t, srv, first.Add(4*time.Second)) // a few more windows
			time.Sleep(1500 * time.Millisecond)
			if evs = col.Events(); len(evs) != 1 || fmt.Sprint(evs[0].Row["id"]) != "2" {
				t.Fatalf("delivered %+v, want only row 2", evs)
			}
			if err := r.Stop(20 * time.Second); err != nil {
				t.Fatal(err)
			}
			if via == "v1 checkpoint" {
				if lines := logs.Lines(slog.LevelInfo, "2026-11-01 01:30:00 -> 2026-11-01 05:30:00 UTC (in a repeated hour: the earlier instant"); len(lines) == 0 {
					t.Fatalf("the conversion of the version 1 checkpoint was not logged:\n%s", logs.All())
				}
				b, err := os.ReadFile(filepath.Join(dir, "tzkey"))
				if err != nil {
					t.Fatal(err)
				}
				st, err := checkpoint.Decode(b)
				if err != nil || st.InFEZone() || st.Stream == nil || st.Stream.Start.String() < "2026-11-01 05:30:00" || !strings.HasPrefix(st.Stream.Start.String(), "2026-11-01 05:3") {
					t.Fatalf("saved checkpoint is not in UTC after the conversion: %+v %v (%s)", st, err, b)
				}
			}
		})
	}
}
