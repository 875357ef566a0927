package input

import (
	"fmt"
	"strings"
	"testing"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// signalTableDDL is the signal table as docs/operating.md shows it.
const signalTableDDL = " (`id` VARCHAR(64) NOT NULL, `type` VARCHAR(32), `data` STRING) UNIQUE KEY(`id`) " +
	`DISTRIBUTED BY HASH(id) BUCKETS 1 PROPERTIES ("binlog.enable" = "true", "binlog.format" = "ROW")`

// With signal_table and include_transaction_markers together, markers
// wrap the data rows only: a transaction holding nothing but a signal row
// has no markers, one holding a signal row and data rows counts the data
// rows alone, and no signal row is emitted or taken as a batch's position.
// The signal table d.asig sorts between d.a and d.b, so its rows fall
// inside the merged order of a transaction's data rows.
func TestWindowReadMarksTransactionsAroundSignals(t *testing.T) {
	f := newWindowFixture(t, nil, "a", "b")
	f.conf.TransactionMarkers = true
	f.exec(t, "CREATE TABLE d.asig"+signalTableDDL)
	f.follow(t, "asig")
	f.tables["asig"].signal = true
	f.wr.sig = &signalSource{co: &coordinator{runEnv: runEnv{log: f.wr.log}}, t: f.tables["asig"]}
	for _, key := range []string{"d.a", "d.b"} {
		f.wr.em.progress.AddTable(key, false, checkpoint.Bound{}, 0)
	}
	f.commit(t, "10:00:01", `INSERT INTO d.asig VALUES ('s1', 'execute-snapshot', '{"data-collections": ["d.a"]}')`)
	f.commit(t, "10:00:02", "INSERT INTO d.a VALUES (1), (2)",
		`INSERT INTO d.asig VALUES ('s2', 'execute-snapshot', '{"data-collections": ["d.b"]}')`,
		"INSERT INTO d.b VALUES (101)")
	f.commit(t, "10:00:03", "INSERT INTO d.a VALUES (3)")
	w := f.window(t, "10:00:00", "10:00:05")
	if _, err := f.read(t, []string{"a", "b", "asig"}, w, nil); err != nil {
		t.Fatal(err)
	}
	var lines []string
	var data []*service.Message
	for _, b := range f.sink.batches {
		lines = append(lines, describe(t, b))
		for _, m := range b {
			if tbl, ok := m.MetaGet("table"); ok {
				if tbl == "asig" {
					t.Fatalf("a signal row was emitted: %s", describe(t, []*service.Message{m}))
				}
				data = append(data, m)
			}
		}
	}
	got := strings.Join(lines, " ")
	if len(data) != 4 {
		t.Fatalf("emitted %d data rows, want 4:\n%s", len(data), got)
	}
	tso2, _ := data[0].MetaGetMut("tso")
	tso3, _ := data[3].MetaGetMut("tso")
	want := fmt.Sprintf(`begin@%d {"id":1} {"id":2} {"id":101} commit@%d[3 d.a:2 d.b:1] begin@%d {"id":3} commit@%d[1 d.a:1]`,
		tso2, tso2, tso3, tso3)
	if got != want {
		t.Fatalf("emitted\n%s\nwant\n%s", got, want)
	}
	for i, st := range f.sink.states {
		if last := st.Stream.Last; last != nil && (last.Table != "d.a" && last.Table != "d.b") {
			t.Fatalf("batch %d (%s) is placed at %v, a row that was not emitted", i, lines[i], last)
		}
	}
	final := f.sink.states[len(f.sink.states)-1]
	if last := final.Stream.Last; last == nil || last.TSO != tso3.(int64) || last.Table != "d.a" {
		t.Fatalf("the window's last commit is placed at %v, want the row of d.a at %d", last, tso3)
	}
	for key, id := range map[string]string{"d.a": "s1", "d.b": "s2"} {
		if p := final.Tables[key].Pending; p == nil || p.ID != id {
			t.Fatalf("table %s has pending signal %+v, want %s", key, p, id)
		}
	}
}
