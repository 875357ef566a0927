package input

// The window reader's test fixture: a simulated Doris with a settable
// clock, the real conn, and helpers that read back what was emitted.

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/input/changes"
	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/input/windowplan"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
)

// simDay is the day the window tests' commits happen on, in UTC.
const simDay = "2026-12-01 "

func simAt(t *testing.T, hms string) time.Time {
	t.Helper()
	at, err := time.Parse(time.DateTime, simDay+hms)
	if err != nil {
		t.Fatal(err)
	}
	return at
}

// dupBinlogDDL is a duplicate key table with a row binlog; rows of one
// INSERT share a TSO and take consecutive LSNs.
const dupBinlogDDL = " (id BIGINT) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1 " +
	`PROPERTIES ("binlog.enable" = "true", "binlog.format" = "ROW")`

// windowFixture is a window reader over the in-process simulator, with the
// real conn, emitting into a recording sink.
type windowFixture struct {
	srv    *dorissim.Server
	clock  *simClock
	conf   *Config
	c      *conn
	wr     *windowReader
	sink   *recordingSink
	capt   *metricsCapture
	lines  *logSink
	tables map[string]*tableInfo
}

// newWindowFixture starts a simulator at 10:00:00 whose record batches hold
// at most two rows, creates database d with the tables named, and builds
// a window reader emitting at most three rows per batch. tune adjusts the
// configuration before the connection opens.
func newWindowFixture(t *testing.T, tune func(*Config), tables ...string) *windowFixture {
	t.Helper()
	f := &windowFixture{clock: &simClock{now: simAt(t, "10:00:00")}, tables: map[string]*tableInfo{}}
	srv := startSim(t, dorissim.Config{Clock: f.clock.Now, FlightBatchRows: 2}, "CREATE DATABASE d")
	f.srv = srv
	for _, name := range tables {
		f.exec(t, "CREATE TABLE d."+name+dupBinlogDDL)
	}
	log, lines := captureLogger(t)
	f.lines = lines
	f.conf = &Config{FENodes: []string{srv.HTTPAddr()}, Username: simUser, Password: simPassword, Retries: 2,
		ConnectTimeout: 2 * time.Second, ReadTimeout: 5 * time.Second, QueryTimeout: 10 * time.Second,
		IncrementType: "DETAIL", OnExpired: "fail", ScanMode: "latest"}
	f.c = openSimConn(t, f.conf, tune, log)
	var m *metrics
	m, f.capt = capturedMetrics(t)
	f.sink = &recordingSink{}
	f.wr = &windowReader{conf: f.conf, log: log, m: m, c: f.c, clock: f.c, maxRows: 3,
		em: &emitter{run: f.sink, progress: checkpoint.New()}, halves: changes.NewHalfPairLog(log.Warnf), bufferLimit: windowHeldLimit}
	for _, name := range tables {
		f.follow(t, name)
	}
	return f
}

// follow makes d.name one of the tables the fixture reads, with its
// properties read, as the catalog has them when it admits a table.
func (f *windowFixture) follow(t *testing.T, name string) {
	t.Helper()
	ti := &tableInfo{name: newTableName("d", name), c: f.c}
	if _, err := ti.properties(testCtx(t), false); err != nil {
		t.Fatal(err)
	}
	f.tables[name] = ti
}

func (f *windowFixture) exec(t *testing.T, stmts ...string) {
	t.Helper()
	simExec(t, f.srv, stmts...)
}

// commit runs stmts as one transaction committed at hms.
func (f *windowFixture) commit(t *testing.T, hms string, stmts ...string) {
	t.Helper()
	f.clock.set(simAt(t, hms))
	if err := f.srv.ExecTx(context.Background(), stmts...); err != nil {
		t.Fatalf("commit at %s: %v", hms, err)
	}
}

func (f *windowFixture) window(t *testing.T, start, end string) windowplan.Window {
	return windowplan.Window{Start: mustBound(t, simDay+start), End: mustBound(t, simDay+end)}
}

func (f *windowFixture) list(names ...string) []*tableInfo {
	out := make([]*tableInfo, len(names))
	for i, n := range names {
		out[i] = f.tables[n]
	}
	return out
}

// read reads w of tables after skip, as the chain does, with the Doris
// clock past w's end.
func (f *windowFixture) read(t *testing.T, tables []string, w windowplan.Window, skip *checkpoint.Pos) ([]string, error) {
	t.Helper()
	return f.readCtx(testCtx(t), tables, w, skip)
}

func (f *windowFixture) readCtx(ctx context.Context, tables []string, w windowplan.Window, skip *checkpoint.Pos) ([]string, error) {
	f.clock.set(time.UnixMilli(w.End.Ms()).Add(time.Second))
	st := f.wr.em.progress
	if st.Stream == nil {
		st.StartChain(w.Start.Stored())
	}
	return f.wr.read(ctx, f.list(tables...), w, nil, skip, false, func(st *checkpoint.State, last checkpoint.Pos) {
		st.ChainProgress(w.Start.Stored(), w.End.Stored(), last)
	})
}

// row is one emitted binlog message: its position and body.
type row struct {
	pos  checkpoint.Pos
	body string
}

func (r row) String() string {
	return fmt.Sprintf("%s %s@%d/%d", r.body, r.pos.Table, r.pos.TSO, r.pos.LSN)
}

func messageRow(t *testing.T, m *service.Message) row {
	t.Helper()
	meta := func(k string) any {
		v, ok := m.MetaGetMut(k)
		if !ok {
			t.Fatalf("message without %s metadata", k)
		}
		return v
	}
	op := slices.Index([]string{"insert", "delete", "update_before", "update_after"}, meta("operation").(string))
	body, err := m.AsBytes()
	if err != nil {
		t.Fatal(err)
	}
	return row{pos: checkpoint.Pos{TSO: meta("tso").(int64), Table: meta("database_schema").(string) + "." + meta("table").(string),
		LSN: meta("lsn").(int64), Op: int8(op)}, body: string(body)}
}

// emitted is every row the sink got, in order. It checks what each batch
// promises: at most maxRows rows, and a position whose last row is the
// batch's last.
func (f *windowFixture) emitted(t *testing.T) []row {
	t.Helper()
	var rows []row
	for i, b := range f.sink.batches {
		if len(b) == 0 {
			continue
		}
		if len(b) > f.wr.maxRows {
			t.Errorf("batch %d has %d rows, more than %d", i, len(b), f.wr.maxRows)
		}
		for _, m := range b {
			rows = append(rows, messageRow(t, m))
		}
		if last := f.sink.states[i].Stream.Last; last == nil || *last != rows[len(rows)-1].pos {
			t.Errorf("batch %d is placed at %v, want its last row %v", i, last, rows[len(rows)-1].pos)
		}
	}
	return rows
}

func bodies(rows []row) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.body
	}
	return out
}

// checkOrder fails unless rows are in strictly increasing (TSO, table, LSN,
// OP) order: in commit order, and none twice.
func checkOrder(t *testing.T, rows []row) {
	t.Helper()
	for i := 1; i < len(rows); i++ {
		if !rows[i-1].pos.Less(rows[i].pos) {
			t.Fatalf("row %d (%v) does not come after row %d (%v)", i, rows[i], i-1, rows[i-1])
		}
	}
}

func wantBodies(t *testing.T, rows []row, want ...string) {
	t.Helper()
	if got := bodies(rows); !slices.Equal(got, want) {
		t.Fatalf("emitted %v, want %v", got, want)
	}
}
