package e2e

import (
	"database/sql"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

const (
	partDays    = 30
	partBuckets = 8
	partRows    = 600 // 20 per day
)

var partFirstDay = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

// createDailyTable creates a UNIQUE KEY table with one RANGE partition per
// day and partBuckets buckets each, and fills every day with rows.
func createDailyTable(t *testing.T, srv *dorissim.Server, table string) {
	t.Helper()
	var parts []string
	for d := range partDays {
		lo, hi := partFirstDay.AddDate(0, 0, d), partFirstDay.AddDate(0, 0, d+1)
		parts = append(parts, fmt.Sprintf("PARTITION p%s VALUES [(\"%s\"), (\"%s\"))", lo.Format("20060102"), lo.Format(time.DateOnly), hi.Format(time.DateOnly)))
	}
	harness.Exec(t, srv, "CREATE DATABASE IF NOT EXISTS e2e", fmt.Sprintf(`CREATE TABLE e2e.%s (
		dt DATE NOT NULL, id BIGINT NOT NULL, v VARCHAR(16)) UNIQUE KEY(dt, id)
		PARTITION BY RANGE(dt) (%s)
		DISTRIBUTED BY HASH(id) BUCKETS %d
		PROPERTIES ("binlog.enable" = "true", "binlog.format" = "ROW", "binlog.need_historical_value" = "true")`,
		table, strings.Join(parts, ",\n"), partBuckets))
	var vals []string
	for id := 1; id <= partRows; id++ {
		vals = append(vals, fmt.Sprintf("('%s', %d, 'v%d')", dayOf(id).Format(time.DateOnly), id, id))
	}
	harness.Exec(t, srv, "INSERT INTO e2e."+table+" VALUES "+strings.Join(vals, ", "))
}

func dayOf(id int) time.Time { return partFirstDay.AddDate(0, 0, id%partDays) }

// dailyState reads the table in the input's text form, keyed by id.
func dailyState(t *testing.T, srv *dorissim.Server, table string) map[string]harness.Row {
	t.Helper()
	rows, err := srv.Query(ctxTimeout(t, time.Minute), "SELECT id, DATE_FORMAT(dt, '%Y-%m-%d'), v FROM e2e."+table)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]harness.Row{}
	for _, r := range rows {
		id := fmt.Sprint(r[0])
		out[id] = harness.Row{"id": id, "dt": fmt.Sprint(r[1]), "v": fmt.Sprint(r[2])}
	}
	return out
}

// TestPartitionedSnapshotReadsEveryTabletOnce snapshots a 30-partition ×
// 8-bucket table with request_tablet_size 1, 7 and 1000: every row arrives
// exactly once whatever the split size.
func TestPartitionedSnapshotReadsEveryTabletOnce(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	createDailyTable(t, srv, "daily")
	info, err := srv.Store().Table("e2e", "daily")
	if err != nil || len(info.TabletIDs) != partDays*partBuckets {
		t.Fatalf("table has %d tablets (%v), want %d", len(info.TabletIDs), err, partDays*partBuckets)
	}
	checkPartitionList(t, srv)
	want := dailyState(t, srv, "daily")
	for _, size := range []int{1, 7, 1000} {
		t.Run(fmt.Sprint("request_tablet_size_", size), func(t *testing.T) {
			col := &harness.Collector{}
			r := harness.RunStream(t, harness.StreamConfig{Input: harness.InputYAML(srv, "e2e.daily", "scan_mode: snapshot",
				fmt.Sprintf("request_tablet_size: %d", size), "max_parallel_snapshot_splits: 4"), Resources: harness.MemoryCache}, col)
			if err := r.Wait(t, 2*time.Minute); err != nil {
				t.Fatalf("snapshot: %v", err)
			}
			evs := col.Events()
			seen := map[string]int{}
			for _, ev := range evs {
				seen[fmt.Sprint(ev.Row["id"])]++
			}
			for id, n := range seen {
				if n != 1 {
					t.Fatalf("row %s delivered %d times", id, n)
				}
			}
			got, err := harness.Replay(evs, "id")
			if err != nil {
				t.Fatal(err)
			}
			if d := harness.Diff(want, got); d != "" || len(evs) != partRows {
				t.Fatalf("%d rows delivered, want %d:\n%s", len(evs), partRows, d)
			}
		})
	}
}

// checkPartitionList lists the partitions through the FE statement API, as
// table discovery will, and expects the 30 days in range order.
func checkPartitionList(t *testing.T, srv *dorissim.Server) {
	t.Helper()
	c, err := doris.NewClient(doris.ClientConfig{FENodes: []string{srv.HTTPAddr()}, Username: "root", ReadTimeout: 30 * time.Second, ConnectTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	parts, err := doris.Partitions(ctxTimeout(t, 30*time.Second), c, "e2e", "daily")
	if err != nil || len(parts) != partDays {
		t.Fatalf("SHOW PARTITIONS: %d partitions, %v", len(parts), err)
	}
	for d, p := range parts {
		if want := "p" + partFirstDay.AddDate(0, 0, d).Format("20060102"); p.Name != want || p.ID <= 0 {
			t.Fatalf("partition %d is %+v, want %s", d, p, want)
		}
	}
}

// TestPartitionedBinlogAcrossPartitions streams an initial snapshot then
// the binlog while transactions insert, update and delete rows of many
// partitions at once: the replay equals the table.
func TestPartitionedBinlogAcrossPartitions(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	createDailyTable(t, srv, "daily_cdc")
	col := &harness.Collector{}
	r := harness.RunStream(t, harness.StreamConfig{Input: harness.InputYAML(srv, "e2e.daily_cdc", "scan_mode: initial",
		"binlog_increment_type: detail", "request_tablet_size: 16"), Resources: harness.MemoryCache}, col)
	harness.WaitCheckpoint(t, r, harness.CheckpointKey("e2e", "daily_cdc"))
	col.WaitFor(t, 60*time.Second, "the snapshot", func(evs []harness.Event) bool { return len(evs) >= partRows })
	db, err := sql.Open("mysql", "root:@tcp("+srv.MySQLAddr()+")/")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(ctxTimeout(t, time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	next := partRows + 1
	for step := range 12 {
		// One transaction touches three partitions: a new row, an update
		// and a delete, each on a different day.
		up, del := 1+step*7, 2+step*7
		for _, q := range []string{"BEGIN",
			fmt.Sprintf("INSERT INTO e2e.daily_cdc VALUES ('%s', %d, 'new')", dayOf(next).Format(time.DateOnly), next),
			fmt.Sprintf("UPDATE e2e.daily_cdc SET v = 'upd%d' WHERE id = %d", step, up),
			fmt.Sprintf("DELETE FROM e2e.daily_cdc WHERE id = %d", del),
			"COMMIT"} {
			if _, err := conn.ExecContext(ctxTimeout(t, 30*time.Second), q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		next++
		if step%4 == 3 {
			time.Sleep(400 * time.Millisecond)
		}
	}
	want := dailyState(t, srv, "daily_cdc")
	var last string
	evs := col.WaitFor(t, 45*time.Second, "the final table state", func(evs []harness.Event) bool {
		got, err := harness.Replay(evs, "id")
		if err != nil {
			t.Fatalf("replay: %v", err)
		}
		last = harness.Diff(want, got)
		return last == ""
	})
	if n := harness.DuplicatePositions(evs); n != 0 {
		t.Fatalf("%d binlog events delivered twice", n)
	}
	days := map[string]bool{}
	for _, ev := range evs {
		if ev.Phase == "binlog" {
			days[fmt.Sprint(ev.Row["dt"])] = true
		}
	}
	if len(days) < 10 {
		t.Fatalf("binlog events cover %d days, want changes across many partitions", len(days))
	}
}

// TestDroppedPartitionIsReported drops a partition of a followed table:
// Doris writes no change records for its rows, so the input warns once,
// naming the table and the partition, and counts it.
func TestDroppedPartitionIsReported(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	createDailyTable(t, srv, "dropped_part")
	logs := &harness.LogCapture{}
	m := &harness.MetricsCapture{}
	col := &harness.Collector{}
	in := harness.SelectYAML(srv, `include: ['e2e\.dropped_part']`, "scan_mode: latest", "table_discovery_interval: 1s", "checkpoint_cache_key: dp")
	r := harness.RunStream(t, harness.StreamConfig{Input: in, Resources: harness.MemoryCache, Logs: logs, Metrics: m}, col)
	harness.WaitCheckpoint(t, r, "dp")
	time.Sleep(1500 * time.Millisecond) // a discovery records the partitions
	harness.Exec(t, srv, "ALTER TABLE e2e.dropped_part DROP PARTITION p20261103")
	harness.WaitFor(t, 20*time.Second, "the dropped partition to be reported", func() bool {
		return len(logs.Lines(slog.LevelWarn, "Partition p20261103 of table e2e.dropped_part was dropped")) > 0
	})
	time.Sleep(2500 * time.Millisecond) // more discoveries must not repeat it
	if n := len(logs.Lines(slog.LevelWarn, "Partition p20261103")); n != 1 {
		t.Fatalf("want one warning, got %d\n%s", n, logs.All())
	}
	if n := m.Counter("doris_binlog_dropped_partitions_total"); n != 1 {
		t.Fatalf("doris_binlog_dropped_partitions_total = %d, want 1", n)
	}
	if n := len(logs.Lines(slog.LevelWarn, "Partition p20261104")); n != 0 {
		t.Fatalf("a partition still there was reported\n%s", logs.All())
	}
}
