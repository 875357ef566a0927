package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
)

// Row is a table row in a comparable text form: column -> value text.
type Row map[string]string

// Replay rebuilds a table from events: snapshot rows and inserts upsert by
// key, update_after upserts, deletes remove, update_before changes nothing.
// Binlog events must arrive in (TSO, LSN, OP) order; an out-of-order event is
// an error.
func Replay(events []Event, key string) (map[string]Row, error) {
	return ReplayOnto(map[string]Row{}, events, key)
}

// ReplayOnto is Replay starting from an existing state, e.g. the table as it
// was when a latest-mode stream started.
func ReplayOnto(start map[string]Row, events []Event, key string) (map[string]Row, error) {
	state := make(map[string]Row, len(start))
	for k, v := range start {
		state[k] = v
	}
	var last [3]int64
	for i, ev := range events {
		row := textRow(ev.Row)
		k, ok := row[key]
		if !ok {
			return nil, fmt.Errorf("event %d has no key column %s: %v", i, key, ev.Row)
		}
		if ev.Phase == "binlog" {
			p := ev.Pos()
			if PosLess(p, last) {
				return nil, fmt.Errorf("event %d at %v arrives after %v: binlog order broken", i, p, last)
			}
			last = p
		}
		switch ev.Operation {
		case "read", "insert", "update_after", "update":
			state[k] = row
		case "delete":
			delete(state, k)
		case "update_before":
		default:
			return nil, fmt.Errorf("event %d has unknown operation %q", i, ev.Operation)
		}
	}
	return state, nil
}

// PosLess orders binlog positions (TSO, LSN, op) as Doris commits them.
func PosLess(a, b [3]int64) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

func textRow(m map[string]any) Row {
	out := make(Row, len(m))
	for k, v := range m {
		switch x := v.(type) {
		case nil:
			out[k] = "NULL"
		case json.Number:
			out[k] = x.String()
		case string:
			out[k] = x
		default:
			b, _ := json.Marshal(x)
			out[k] = string(b)
		}
	}
	return out
}

// TableState reads db.table from the simulator in the same text form as
// Replay. Decimals keep their column scale, as the input renders them.
func TableState(t testing.TB, srv *dorissim.Server, db, table, key string, cols ...string) map[string]Row {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	quoted := make([]string, len(cols))
	for i, c := range cols {
		quoted[i] = QuoteIdent(c)
	}
	rows, err := srv.Query(ctx, fmt.Sprintf("SELECT %s FROM %s.%s", strings.Join(quoted, ", "), QuoteIdent(db), QuoteIdent(table)))
	if err != nil {
		t.Fatalf("reading %s.%s: %v", db, table, err)
	}
	state := map[string]Row{}
	for _, r := range rows {
		row := Row{}
		for i, c := range cols {
			row[c] = valueText(r[i])
		}
		state[row[key]] = row
	}
	return state
}

func valueText(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case decimal.Decimal:
		return x.StringFixed(-x.Exponent())
	case string:
		return x
	default:
		return fmt.Sprint(x)
	}
}

// Diff describes how two table states differ, or returns "".
func Diff(want, got map[string]Row) string {
	var keys []string
	for k := range want {
		keys = append(keys, k)
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	out := ""
	n := 0
	for _, k := range keys {
		w, wok := want[k]
		g, gok := got[k]
		switch {
		case !gok:
			out += fmt.Sprintf("missing key %s (want %v)\n", k, w)
		case !wok:
			out += fmt.Sprintf("unexpected key %s (%v)\n", k, g)
		case fmt.Sprint(w) != fmt.Sprint(g):
			out += fmt.Sprintf("key %s: want %v, got %v\n", k, w, g)
		default:
			continue
		}
		if n++; n >= 10 {
			return out + "...\n"
		}
	}
	return out
}

// SortDedupe orders binlog events by position and drops repeated positions,
// for outputs that may see a batch again after a nack.
func SortDedupe(events []Event) []Event {
	var snap, bin []Event
	for _, ev := range events {
		if ev.Phase == "binlog" {
			bin = append(bin, ev)
		} else {
			snap = append(snap, ev)
		}
	}
	sort.SliceStable(bin, func(i, j int) bool { return PosLess(bin[i].Pos(), bin[j].Pos()) })
	out := snap
	for i, ev := range bin {
		if i > 0 && ev.Pos() == bin[i-1].Pos() {
			continue
		}
		out = append(out, ev)
	}
	return out
}

// DuplicatePositions counts binlog events whose position was delivered
// before.
func DuplicatePositions(events []Event) int {
	seen := map[[3]int64]bool{}
	n := 0
	for _, ev := range events {
		if ev.Phase != "binlog" {
			continue
		}
		if seen[ev.Pos()] {
			n++
		}
		seen[ev.Pos()] = true
	}
	return n
}

// QuoteIdent quotes a Doris identifier, doubling any backtick in it.
func QuoteIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }
