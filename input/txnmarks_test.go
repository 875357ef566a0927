package input

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/input/txmarkers"
)

// markerBody is a marker's JSON body.
type markerBody struct {
	TransactionID string                 `json:"transaction_id"`
	TSO           int64                  `json:"tso"`
	CommitTsMs    int64                  `json:"commit_ts_ms"`
	EventCount    *int64                 `json:"event_count"`
	Tables        []txmarkers.TableCount `json:"tables"`
}

// describe writes a batch as a line: markers as begin@TSO and
// commit@TSO[n a:2 b:1], rows as their bodies.
func describe(t *testing.T, batch []*service.Message) string {
	t.Helper()
	var parts []string
	for _, m := range batch {
		raw, err := m.AsBytes()
		if err != nil {
			t.Fatal(err)
		}
		switch txmarkers.KindOf(m) {
		case txmarkers.None:
			parts = append(parts, string(raw))
			continue
		case txmarkers.Begin, txmarkers.Commit:
		}
		var b markerBody
		if err := json.Unmarshal(raw, &b); err != nil {
			t.Fatalf("marker body %s: %v", raw, err)
		}
		op, _ := m.MetaGet("operation")
		tso, _ := m.MetaGetMut("tso")
		id, _ := m.MetaGet("transaction_id")
		if tso != b.TSO || id != fmt.Sprint(b.TSO) || b.TransactionID != id {
			t.Fatalf("%s marker: metadata tso %v, transaction_id %q; body %s", op, tso, id, raw)
		}
		if _, has := m.MetaGet("table"); has {
			t.Fatalf("%s marker has a table: a transaction may span tables", op)
		}
		s := fmt.Sprintf("%s@%d", op, b.TSO)
		if b.EventCount != nil {
			s += fmt.Sprintf("[%d", *b.EventCount)
			for _, tc := range b.Tables {
				s += fmt.Sprintf(" %s:%d", tc.Table, tc.EventCount)
			}
			s += "]"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

// A transaction's rows come between its begin and its commit, the commit
// counting them per table; a batch that ends inside a transaction carries
// the last row of the last whole transaction, or no position at all.
func TestTxnMarksWrapsTransactionsAcrossBatches(t *testing.T) {
	pos := func(tso int64, table string, lsn int64) checkpoint.Pos {
		return checkpoint.Pos{TSO: tso, Table: table, LSN: lsn}
	}
	msgs := func(ps ...checkpoint.Pos) []*service.Message {
		out := make([]*service.Message, len(ps))
		for i, p := range ps {
			out[i] = service.NewMessage(fmt.Appendf(nil, "%s/%d", p.Table, p.LSN))
		}
		return out
	}
	tm := newTxnMarks(false)
	b1 := []checkpoint.Pos{pos(7, "d.a", 1), pos(7, "d.a", 2), pos(7, "d.b", 1)}
	out, done := tm.wrap(msgs(b1...), b1)
	if got, want := describe(t, out), "begin@7 d.a/1 d.a/2 d.b/1"; got != want || done != nil {
		t.Fatalf("first batch %q placed at %v; want %q placed nowhere", got, done, want)
	}
	b2 := []checkpoint.Pos{pos(7, "d.b", 2), pos(9, "d.a", 3)}
	out, done = tm.wrap(msgs(b2...), b2)
	if got, want := describe(t, out), "d.b/2 commit@7[4 d.a:2 d.b:2] begin@9 d.a/3"; got != want || done == nil || *done != b2[0] {
		t.Fatalf("second batch %q placed at %v; want %q placed at %v", got, done, want, b2[0])
	}
	m, last, ok := tm.finish()
	if !ok || last != b2[1] {
		t.Fatalf("finish: ok %v at %v; want the commit of 9 at %v", ok, last, b2[1])
	}
	if got, want := describe(t, []*service.Message{m}), "commit@9[1 d.a:1]"; got != want {
		t.Fatalf("finish gave %q, want %q", got, want)
	}
	if _, _, ok := tm.finish(); ok {
		t.Fatal("finish closed a transaction twice")
	}
}

// A catch-up read's markers say so, as its rows do, so that kafka_franz
// leaves them out of its order as it leaves those rows.
func TestTxnMarksOfACatchUpCarryItsPhase(t *testing.T) {
	tm := newTxnMarks(true)
	p := []checkpoint.Pos{{TSO: 5, Table: "d.a", LSN: 1}}
	out, _ := tm.wrap([]*service.Message{service.NewMessage([]byte("{}"))}, p)
	c, _, _ := tm.finish()
	for _, m := range []*service.Message{out[0], c} {
		if v, _ := m.MetaGet("doris_phase"); v != "catchup" {
			t.Fatalf("catch-up marker has doris_phase %q, want catchup", v)
		}
	}
}

// With include_transaction_markers, a window read puts each transaction's
// rows between its begin and commit, one transaction writing two tables
// included, and the positions its batches carry stop only at whole
// transactions, so a restart from any of them begins a transaction anew.
func TestWindowReadMarksTransactions(t *testing.T) {
	f := newWindowFixture(t, nil, "a", "b")
	f.conf.TransactionMarkers = true
	f.commit(t, "10:00:01", "INSERT INTO d.a VALUES (1), (2)", "INSERT INTO d.b VALUES (101), (102)")
	f.commit(t, "10:00:02", "INSERT INTO d.a VALUES (3)")
	w := f.window(t, "10:00:00", "10:00:05")
	if _, err := f.read(t, []string{"a", "b"}, w, nil); err != nil {
		t.Fatal(err)
	}
	var lines []string
	var all []*service.Message
	for _, b := range f.sink.batches {
		lines = append(lines, describe(t, b))
		all = append(all, b...)
	}
	got := strings.Join(lines, " | ")
	tso1, _ := all[0].MetaGetMut("tso")
	tso2, _ := all[len(all)-1].MetaGetMut("tso")
	want := fmt.Sprintf(`begin@%d {"id":1} {"id":2} {"id":101} | {"id":102} commit@%d[4 d.a:2 d.b:2] begin@%d {"id":3} | commit@%d[1 d.a:1]`,
		tso1, tso1, tso2, tso2)
	if got != want {
		t.Fatalf("emitted\n%s\nwant\n%s", got, want)
	}
	// The first batch ends inside the first transaction: it moves nothing.
	if last := f.sink.states[0].Stream.Last; last != nil {
		t.Fatalf("a batch ending inside a transaction is placed at %v; a restart there would resume inside it", last)
	}
	if last := f.sink.states[1].Stream.Last; last == nil || last.TSO != tso1 || last.Table != "d.b" {
		t.Fatalf("the batch that completes the first transaction is placed at %v, want its last row (d.b at %d)", last, tso1)
	}
	if last := f.sink.states[2].Stream.Last; last == nil || last.TSO != tso2 {
		t.Fatalf("the window's last commit is placed at %v, want the last row at %d", last, tso2)
	}
}

// Markers need a binlog phase: lint and the constructor both refuse them
// in snapshot mode, naming the field; the incremental modes take them.
func TestTransactionMarkersNeedABinlogPhase(t *testing.T) {
	body := configYAML(with(nil, "include_transaction_markers", "true"))
	if err := lintInput(t, body); err == nil || !strings.Contains(err.Error(), "include_transaction_markers is only valid in incremental scan modes") {
		t.Errorf("lint error %v, want include_transaction_markers refused in snapshot mode\n%s", err, body)
	}
	if _, err := parseInput(t, body); err == nil || !strings.Contains(err.Error(), "field include_transaction_markers:") {
		t.Errorf("parse error %v, want field include_transaction_markers", err)
	}
	body = configYAML(with(incr, "include_transaction_markers", "true"))
	if err := lintInput(t, body); err != nil {
		t.Errorf("lint of markers in an incremental mode: %v\n%s", err, body)
	}
	conf, err := parseInput(t, body)
	if err != nil || !conf.TransactionMarkers {
		t.Errorf("parse of markers in an incremental mode: %v, TransactionMarkers %v", err, conf != nil && conf.TransactionMarkers)
	}
}
