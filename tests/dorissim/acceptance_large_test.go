package dorissim

import (
	"fmt"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

const (
	largeRows    = 1_000_000
	largeTxnRows = 100_000
)

// seedLarge loads ids 1..largeRows straight through storage transactions:
// a million-row SQL INSERT would dominate the suite's time under -race.
func seedLarge(t *testing.T, s *Server) {
	t.Helper()
	mustExecAll(t, s, "CREATE DATABASE big",
		"CREATE TABLE big.t (id BIGINT NOT NULL, v VARCHAR(16)) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 8 "+
			`PROPERTIES ("binlog.enable" = "true", "binlog.format" = "ROW")`)
	for lo := 1; lo <= largeRows; lo += largeTxnRows {
		tx := s.Store().Begin()
		for id := lo; id < lo+largeTxnRows && id <= largeRows; id++ {
			if err := tx.Insert("big", "t", []any{int64(id), "v"}); err != nil {
				tx.Rollback()
				t.Fatalf("insert %d: %v", id, err)
			}
		}
		if _, err := tx.Commit(); err != nil {
			t.Fatalf("commit rows from %d: %v", lo, err)
		}
	}
}

// TestAcceptanceFlightReadsMillionRows reads a 1,000,000-row table with an
// arrow-go flightsql.Client (Execute on the FE, DoGet at each endpoint's
// location), as a snapshot and as one @incr window over its binlog, and
// checks the exact row count and the sum of the ids of both.
func TestAcceptanceFlightReadsMillionRows(t *testing.T) {
	clock := newFakeClock(at("10:00:00"))
	s := startSim(t, Config{Clock: clock.Now})
	began := time.Now()
	seedLarge(t, s)
	clock.Set(at("10:00:10"))
	seeded := time.Now()
	fs := newFlightSession(t, s)
	if err := fs.exec("SET time_zone = 'UTC'"); err != nil {
		t.Fatalf("flight set time_zone: %v", err)
	}
	checkLargeRead(t, fs, "SELECT id, v FROM big.t")
	read := time.Now()
	checkLargeRead(t, fs, "SELECT id, v, __DORIS_BINLOG_TSO__, __DORIS_BINLOG_LSN__, __DORIS_BINLOG_OP__ FROM big.t@incr("+
		"'startTimestamp' = '2026-09-14 10:00:00', 'endTimestamp' = '2026-09-14 10:00:10', 'incrementType' = 'APPEND_ONLY') "+
		"ORDER BY __DORIS_BINLOG_TSO__, __DORIS_BINLOG_LSN__, __DORIS_BINLOG_OP__")
	t.Logf("seeded %d rows in %s, read the snapshot over Flight in %s, the binlog window in %s",
		largeRows, seeded.Sub(began), read.Sub(seeded), time.Since(read))
}

func checkLargeRead(t *testing.T, fs *flightSession, q string) {
	t.Helper()
	var rows, sum, nulls int64
	var order binlogOrder
	err := fs.query(q, func(rec arrow.RecordBatch) error {
		if err := order.check(rec); err != nil {
			return err
		}
		ids, ok := rec.Column(0).(*array.Int64)
		if !ok {
			return fmt.Errorf("id column is %s, want int64", rec.Column(0).DataType())
		}
		for i := 0; i < ids.Len(); i++ {
			sum += ids.Value(i)
		}
		rows += rec.NumRows()
		nulls += int64(rec.Column(1).NullN())
		return nil
	})
	if err != nil {
		t.Fatalf("flight read %s: %v", q, err)
	}
	if want := int64(largeRows) * (largeRows + 1) / 2; rows != largeRows || sum != want || nulls != 0 {
		t.Fatalf("read %d rows, id sum %d, %d NULL v; want %d rows, sum %d, no NULLs", rows, sum, nulls, largeRows, want)
	}
}

// binlogOrder checks that binlog rows (columns 2-4: TSO, LSN, OP) come as
// APPEND records in strictly ascending (TSO, LSN) order across batches.
type binlogOrder struct{ tso, lsn int64 }

func (o *binlogOrder) check(rec arrow.RecordBatch) error {
	if rec.NumCols() < 5 {
		return nil
	}
	tso, ok1 := rec.Column(2).(*array.Int64)
	lsn, ok2 := rec.Column(3).(*array.Int64)
	op, ok3 := rec.Column(4).(*array.Int8)
	if !ok1 || !ok2 || !ok3 {
		return fmt.Errorf("binlog columns are %s, %s, %s", rec.Column(2).DataType(), rec.Column(3).DataType(), rec.Column(4).DataType())
	}
	for i := 0; i < tso.Len(); i++ {
		t, l := tso.Value(i), lsn.Value(i)
		if t < o.tso || (t == o.tso && l <= o.lsn) || op.Value(i) != 0 {
			return fmt.Errorf("binlog row (tso %d, lsn %d, op %d) after (tso %d, lsn %d)", t, l, op.Value(i), o.tso, o.lsn)
		}
		o.tso, o.lsn = t, l
	}
	return nil
}
