package bench

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"
)

const (
	benchDB   = "bench"
	loadBatch = 100_000
)

// mixedColumns is the 12-column table of decisions.md "Performance facts".
const mixedColumns = `id BIGINT NOT NULL,
  user_id INT, status TINYINT, name VARCHAR(64), note STRING,
  score DOUBLE, ratio FLOAT, amount DECIMAL(18,2), balance DECIMAL(38,10),
  created DATETIME(6), day DATE, active BOOLEAN`

func mixedDDL(table string, binlog bool) string {
	if !binlog {
		return fmt.Sprintf("CREATE TABLE %s.%s (%s) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 8 PROPERTIES (\"replication_num\" = \"1\")",
			benchDB, table, mixedColumns)
	}
	return fmt.Sprintf(`CREATE TABLE %s.%s (%s) UNIQUE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 8 PROPERTIES (
  "replication_num" = "1", "enable_unique_key_merge_on_write" = "true",
  "binlog.enable" = "true", "binlog.format" = "ROW", "binlog.need_historical_value" = "true")`,
		benchDB, table, mixedColumns)
}

func narrowDDL(table string) string {
	return fmt.Sprintf("CREATE TABLE %s.%s (id BIGINT NOT NULL, v INT, s VARCHAR(16)) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 8 PROPERTIES (\"replication_num\" = \"1\")",
		benchDB, table)
}

// appendMixedRow writes row id of the mixed table as a CSV line; version
// changes the values so that updates differ from inserts. About one value in
// ten of the nullable columns is NULL.
func appendMixedRow(b []byte, id, version int64) []byte {
	x := uint64(id*2654435761+version*40503) ^ 0x9e3779b97f4a7c15
	b = strconv.AppendInt(b, id, 10)
	b = append(b, '\t')
	nullRow := id%10 == 9
	b = strconv.AppendInt(b, int64(x%2_000_000_000), 10)
	b = append(b, '\t')
	b = strconv.AppendInt(b, int64(x%5), 10)
	b = append(b, '\t')
	b = fmt.Appendf(b, "customer-%06d\t", x%1_000_000)
	if nullRow {
		b = append(b, `\N`...)
	} else {
		b = fmt.Appendf(b, "order for \"%d\" — café v%d", id, version)
	}
	b = append(b, '\t')
	b = strconv.AppendFloat(b, float64(x%1_000_000)/1000, 'f', -1, 64)
	b = append(b, '\t')
	if nullRow {
		b = append(b, `\N`...)
	} else {
		b = strconv.AppendFloat(b, float64(x%1000)/1024, 'f', -1, 32)
	}
	b = fmt.Appendf(b, "\t%d.%02d\t", x%10_000_000, x%100)
	if nullRow {
		b = append(b, `\N`...)
	} else {
		b = fmt.Appendf(b, "%d.%010d", x%1_000_000_000, x%10_000_000_000)
	}
	created := time.Date(2025, 10, 9, 8, 53, 20, 0, time.UTC).Add(time.Duration(id) * time.Second).Add(time.Duration(x%1_000_000) * time.Microsecond)
	b = append(b, '\t')
	b = created.AppendFormat(b, "2006-01-02 15:04:05.000000")
	b = append(b, '\t')
	if nullRow {
		b = append(b, `\N`...)
	} else {
		b = created.AppendFormat(b, "2006-01-02")
	}
	b = append(b, '\t')
	b = strconv.AppendBool(b, id%2 == 0)
	return append(b, '\n')
}

func appendNarrowRow(b []byte, id, _ int64) []byte {
	b = strconv.AppendInt(b, id, 10)
	b = append(b, '\t')
	b = strconv.AppendInt(b, (id*7919)%1_000_000, 10)
	return fmt.Appendf(b, "\tn%07d\n", id%10_000_000)
}

// loadRange stream-loads rows [from, to) in batches of loadBatch.
func (s *sim) loadRange(ctx context.Context, table string, from, to, version int64,
	row func([]byte, int64, int64) []byte, headers map[string]string) error {
	buf := make([]byte, 0, 16<<20)
	for start := from; start < to; start += loadBatch {
		end := min(start+loadBatch, to)
		buf = buf[:0]
		for id := start; id < end; id++ {
			buf = row(buf, id, version)
		}
		label := fmt.Sprintf("%s_%d_%d_v%d_%s", table, start, end, version, headers["merge_type"])
		if err := s.streamLoad(ctx, benchDB, table, label, buf, headers); err != nil {
			return err
		}
	}
	return nil
}

// seedBacklog applies backlogChanges row changes to a binlog table: 60%
// inserts, then 30% updates of inserted rows, then 10% deletes.
func (s *sim) seedBacklog(ctx context.Context, table string) error {
	return s.seedBacklogOf(ctx, table, backlogChanges)
}

// seedBacklogOf is seedBacklog with n changes.
func (s *sim) seedBacklogOf(ctx context.Context, table string, n int64) error {
	ins, upd, del := n*6/10, n*3/10, n/10
	if err := s.loadRange(ctx, table, 0, ins, 0, appendMixedRow, nil); err != nil {
		return err
	}
	if err := s.loadRange(ctx, table, 0, upd, 1, appendMixedRow, nil); err != nil {
		return err
	}
	return s.loadRange(ctx, table, upd, upd+del, 1, appendMixedRow, map[string]string{"merge_type": "DELETE"})
}

// seedMixed creates benchDB, the mixed table of row a and the tables of
// more (DDL statements), then loads snapshotRows rows into mixed: the data
// of the rows that a test runs on a simulator of its own.
func seedMixed(t *testing.T, ctx context.Context, s *sim, more ...string) {
	t.Helper()
	for _, st := range append([]string{"CREATE DATABASE IF NOT EXISTS " + benchDB, mixedDDL("mixed", false)}, more...) {
		if err := s.exec(ctx, st); err != nil {
			t.Fatal(err)
		}
	}
	measure(t, "seed mixed", func() error { return s.loadRange(ctx, "mixed", 0, snapshotRows, 0, appendMixedRow, nil) })
}
