package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// TestOffsetTableRowsAppear configures binlog_offset_table and checks that
// the consumer's row is written and keeps moving with the committed windows.
func TestOffsetTableRowsAppear(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, "e2e", "offsets_src", harness.TableOpts{})
	harness.Exec(t, srv, "CREATE DATABASE ops",
		"CREATE TABLE ops.flink_source_offsets (\n  consumer_id VARCHAR(256) NOT NULL,\n  offset_timestamp DATETIME NOT NULL,\n  update_time DATETIMEV2(3) NOT NULL)\nUNIQUE KEY(consumer_id) DISTRIBUTED BY HASH(consumer_id) BUCKETS 1\nPROPERTIES (\"replication_num\" = \"1\")")
	col := &harness.Collector{}
	in := harness.InputYAML(srv, "e2e.offsets_src", "scan_mode: latest",
		"jdbc_url: jdbc:mysql://"+srv.MySQLAddr(), "binlog_offset_table: ops.flink_source_offsets", "binlog_consumer_id: e2e-consumer")
	harness.RunStream(t, harness.StreamConfig{Input: in, Resources: harness.MemoryCache}, col)

	read := func() (string, int) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		rows, err := srv.Query(ctx, "SELECT consumer_id, offset_timestamp FROM ops.flink_source_offsets")
		if err != nil {
			t.Fatalf("reading the offset table: %v", err)
		}
		if len(rows) == 0 {
			return "", 0
		}
		if fmt.Sprint(rows[0][0]) != "e2e-consumer" {
			t.Fatalf("offset row for consumer %v", rows[0][0])
		}
		return fmt.Sprint(rows[0][1]), len(rows)
	}
	deadline := time.Now().Add(30 * time.Second)
	var first string
	for time.Now().Before(deadline) {
		if ts, n := read(); n == 1 {
			if first == "" {
				first = ts
			} else if ts > first {
				return // the published offset moves on with the windows
			}
		} else if n > 1 {
			t.Fatalf("offset table has %d rows for one consumer", n)
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("the offset row did not appear and advance within 30s (first %q)", first)
}
