package dorissim

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// TestAcceptanceIncrMemLimit checks the simulator's exec_mem_limit model
// for @incr: a window holding more records than the session's
// exec_mem_limit allows fails as a whole with MEM_LIMIT_EXCEEDED (over
// MySQL and Flight alike), and the halves of the same window succeed and
// together give the same rows.
func TestAcceptanceIncrMemLimit(t *testing.T) {
	clock := newFakeClock(at("10:00:00"))
	s := startSim(t, Config{Clock: clock.Now})
	conn := mysqlConn(t, s)
	mustExecAll(t, s, "CREATE DATABASE sales", acceptTTLDDL)
	for i := 1; i <= 6; i++ {
		clock.Set(at(fmt.Sprintf("10:00:%02d", i*5)))
		mustExecAll(t, s, fmt.Sprintf("INSERT INTO sales.ttl VALUES (%d, 'v')", i))
	}
	clock.Set(at("10:00:59"))
	fs := newFlightSession(t, s)
	limit := fmt.Sprintf("SET exec_mem_limit = %d", 4*storage.IncrRowMemBytes)
	for _, q := range []string{"SET time_zone = 'UTC'", limit} {
		if err := fs.exec(q); err != nil {
			t.Fatalf("flight %s: %v", q, err)
		}
		if _, err := conn.ExecContext(testCtx(t), q); err != nil {
			t.Fatalf("mysql %s: %v", q, err)
		}
	}
	incr := func(start, end string) string {
		return "SELECT id FROM sales.ttl@incr('startTimestamp' = '2026-09-14 " + start + "', 'endTimestamp' = '2026-09-14 " + end +
			"', 'incrementType' = 'DETAIL') ORDER BY __DORIS_BINLOG_TSO__"
	}
	wantDorisError(t, conn, fs, incr("10:00:00", "10:00:40"), fmt.Sprintf("[MEM_LIMIT_EXCEEDED]Allocator mem tracker check failed, "+
		"[MEM_LIMIT_EXCEEDED]failed alloc size 1024 bytes, memory tracker limit exceeded, tracker label:Query, type:query, "+
		"limit 4096 bytes, peak used 6144 bytes. If query, can change the limit by `set exec_mem_limit=xxx`"))
	var got [][]string
	for _, half := range [][2]string{{"10:00:00", "10:00:20"}, {"10:00:20", "10:00:40"}} {
		rows, err := fs.text(incr(half[0], half[1]))
		if err != nil {
			t.Fatalf("half %v: %v", half, err)
		}
		got = append(got, rows...)
	}
	want := [][]string{{"1"}, {"2"}, {"3"}, {"4"}, {"5"}, {"6"}}
	if !equalRows(got, want) {
		t.Fatalf("halves gave %v, want %v", got, want)
	}
}

// TestAcceptanceIncrMemoryPressure checks the incr_memory_pressure fault:
// the next @incr query is cancelled as a Doris BE's memory GC cancels the
// largest query when the process runs short of memory, with Doris's text
// (MEM_LIMIT_EXCEEDED, "Process memory not enough", the process figures),
// over MySQL and Flight alike; the same query then succeeds whole, with no
// exec_mem_limit involved.
func TestAcceptanceIncrMemoryPressure(t *testing.T) {
	clock := newFakeClock(at("10:00:00"))
	s := startSim(t, Config{Clock: clock.Now})
	conn := mysqlConn(t, s)
	mustExecAll(t, s, "CREATE DATABASE sales", acceptTTLDDL)
	for i := 1; i <= 3; i++ {
		clock.Set(at(fmt.Sprintf("10:00:%02d", i*5)))
		mustExecAll(t, s, fmt.Sprintf("INSERT INTO sales.ttl VALUES (%d, 'v')", i))
	}
	clock.Set(at("10:00:59"))
	fs := newFlightSession(t, s)
	if err := fs.exec("SET time_zone = 'UTC'"); err != nil {
		t.Fatal(err)
	}
	q := "SELECT id FROM sales.ttl@incr('startTimestamp' = '2026-09-14 10:00:00', 'endTimestamp' = '2026-09-14 10:00:40', " +
		"'incrementType' = 'DETAIL') ORDER BY __DORIS_BINLOG_TSO__"
	const (
		head = "(127.0.0.1)[MEM_LIMIT_EXCEEDED]Process memory not enough, cancel top memory used query: <Query#Id="
		tail = "> consumption 3.00 KB, backend 127.0.0.1, process memory used 3.12 GB exceed limit 3.01 GB or sys available memory 191.25 GB " +
			"less than low water mark 3.20 GB. Execute again after enough memory, details see be.INFO."
	)
	for _, over := range []string{"flight", "mysql"} {
		s.SetFaults(Faults{IncrMemoryPressure: 1})
		var err error
		if over == "flight" {
			_, err = fs.text(q)
		} else {
			_, err = mysqlText(testCtx(t), conn, q)
		}
		if err == nil || !strings.Contains(err.Error(), head) || !strings.Contains(err.Error(), tail) {
			t.Fatalf("%s under memory pressure: %v, want %s...%s", over, err, head, tail)
		}
		rows, err := fs.text(q)
		if err != nil {
			t.Fatalf("%s: the same query after the pressure: %v", over, err)
		}
		if want := [][]string{{"1"}, {"2"}, {"3"}}; !equalRows(rows, want) {
			t.Fatalf("%s: the same query after the pressure gave %v, want %v", over, rows, want)
		}
	}
}
