package input

import (
	"strings"
	"testing"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

func TestParseSignal(t *testing.T) {
	sig, err := parseSignal([]byte(`{"id":"s1","type":"execute-snapshot","data":"{\"data-collections\":[\"shop.orders\",\"shop.items\"],` +
		`\"additional-conditions\":[{\"data-collection\":\"shop.orders\",\"filter\":\"id > 10\"}]}"}`))
	if err != nil {
		t.Fatal(err)
	}
	if sig.id != "s1" || sig.kind != checkpoint.SignalExecuteSnapshot || strings.Join(sig.tables, ",") != "shop.orders,shop.items" ||
		sig.filters["shop.orders"] != "id > 10" || sig.filters["shop.items"] != "" {
		t.Fatalf("parsed %+v", sig)
	}
	stop, err := parseSignal([]byte(`{"id":"s2","type":"stop-snapshot","data":null}`))
	if err != nil || stop.kind != checkpoint.SignalStopSnapshot || len(stop.tables) != 0 {
		t.Fatalf("a stop of every table: %+v %v", stop, err)
	}
}

// A malformed signal is refused naming what is wrong, and its id when it
// has one, so that the warning names the signal.
func TestParseSignalRefusesMalformedRows(t *testing.T) {
	for body, want := range map[string]string{
		`not json`: "not a JSON object",
		`{"id":"","type":"execute-snapshot","data":"{}"}`:                                  "column id is empty",
		`{"id":"x","type":"pause","data":"{}"}`:                                            `unknown type "pause"`,
		`{"id":"x","type":"execute-snapshot","data":"{\"data-collections\":\"a.b\"}"}`:     "column data is not the JSON object",
		`{"id":"x","type":"execute-snapshot","data":"{}"}`:                                 "needs the tables to snapshot",
		`{"id":"x","type":"execute-snapshot","data":"{\"data-collections\":[\"nodot\"]}"}`: `table "nodot"`,
		`{"id":"x","type":"execute-snapshot","data":"{\"data-collections\":[\"a.b\"],\"additional-conditions\":[{\"data-collection\":\"a.b\",\"filter\":\"1=1; DROP TABLE a.b\"}]}"}`: "filter of a.b",
		`{"id":7,"type":"execute-snapshot","data":"{}"}`: "column id must be a string",
	} {
		sig, err := parseSignal([]byte(body))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want it to say %q", body, err, want)
			continue
		}
		if strings.Contains(body, `"id":"x"`) && (sig == nil || sig.id != "x") {
			t.Errorf("%s: the id is not kept for the warning: %+v", body, sig)
		}
	}
}

// The signal table's rows leave a merged batch; the data keeps its order.
func TestSignalRowsSplitsABatch(t *testing.T) {
	msg := func(db, table, body string) *service.Message {
		m := service.NewMessage([]byte(body))
		m.MetaSetMut(metaKeyDatabase, db)
		m.MetaSetMut(metaKeyTable, table)
		return m
	}
	sigTable := newTableName("ops", "signals")
	in := []*service.Message{msg("shop", "a", "1"), msg("ops", "signals", "s"), msg("shop", "signals", "2"), msg("shop", "b", "3")}
	data, sigs := signalRows(in, sigTable)
	var got []string
	for _, m := range data {
		b, _ := m.AsBytes()
		got = append(got, string(b))
	}
	if strings.Join(got, ",") != "1,2,3" || len(sigs) != 1 {
		t.Fatalf("data %v, %d signal rows", got, len(sigs))
	}
	if data, sigs := signalRows(in[:1], sigTable); len(data) != 1 || sigs != nil {
		t.Fatal("a batch without signals changed")
	}
}
