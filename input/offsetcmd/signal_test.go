package offsetcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// signalled is stored with d.a taking the snapshot of signal s1 (filtered)
// and signal s2 read for d.b in the chain's current window.
func signalled(t *testing.T) *checkpoint.State {
	t.Helper()
	s := stored(t, time.Now().Add(-time.Hour))
	if err := s.Resnapshot("d.a", checkpoint.BySignal("s1", "id > 3"), checkpoint.BinlogFrom(s.Stream.Start)); err != nil {
		t.Fatal(err)
	}
	s.NoteSignal("d.b", checkpoint.PendingSignal{ID: "s2", Kind: checkpoint.SignalExecuteSnapshot})
	return s
}

// offsets show tells a table's signal state in both formats: an operator
// who moves a table must see that a signal would move it too.
func TestShowTellsTheSignals(t *testing.T) {
	tg := mustOpen(t, writeConfig(t, t.TempDir(), signalled(t)))
	r, err := tg.Show(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var text, js bytes.Buffer
	if err := Write(&text, FormatText, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Signal: d.a takes the snapshot of signal s1 (filter: id > 3)",
		"Pending signal: d.b has execute-snapshot signal s2, applied when the chain's window ends",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text output lacks %q:\n%s", want, text.String())
		}
	}
	if err := Write(&js, FormatJSON, r); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	a, b := back.Tables[0], back.Tables[1]
	if a.Signal != "s1" || a.SignalFilter != "id > 3" || a.PendingSignal != nil {
		t.Errorf("json d.a: %+v", a)
	}
	if b.PendingSignal == nil || *b.PendingSignal != (SignalReport{ID: "s2", Kind: "execute-snapshot"}) || b.Signal != "" {
		t.Errorf("json d.b: %+v", b)
	}
}

// reset and set replace a table's signal state, and say so: the signal's
// snapshot is abandoned, the pending signal dropped.
func TestResetAndSetDropTheSignalAndSaySo(t *testing.T) {
	dir := t.TempDir()
	tg := mustOpen(t, writeConfig(t, dir, signalled(t)))
	e, err := tg.Reset(context.Background(), []string{"d.a"}, EditOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Write(&out, FormatText, e); err != nil {
		t.Fatal(err)
	}
	before, after, _ := strings.Cut(out.String(), "After (written):")
	if !strings.Contains(before, "Signal: d.a takes the snapshot of signal s1") || strings.Contains(after, "Signal: d.a") {
		t.Errorf("reset before/after do not show the signal dropped:\n%s", out.String())
	}
	if !strings.Contains(after, "Note: table d.a: the snapshot of signal s1 it was taking is abandoned") {
		t.Errorf("reset does not say it dropped the signal:\n%s", out.String())
	}
	if a := storedState(t, dir).Tables["d.a"]; a.Phase != checkpoint.PhaseSnapshot || a.Signal != "" || a.SignalFilter != "" {
		t.Fatalf("stored d.a after reset: %+v; want a full snapshot", a)
	}

	e, err = tg.Set(context.Background(), "d.b", SetPosition{Timestamp: "2026-01-01 10:00:01"}, EditOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Notes) != 1 || !strings.Contains(e.Notes[0], "pending execute-snapshot signal s2 is dropped") ||
		e.Before.Tables[1].PendingSignal == nil || e.After.Tables[1].PendingSignal != nil {
		t.Fatalf("set: notes %q, before %+v, after %+v", e.Notes, e.Before.Tables[1], e.After.Tables[1])
	}
	if b := storedState(t, dir).Tables["d.b"]; b.Phase != checkpoint.PhaseCatchUp || b.Pending != nil {
		t.Fatalf("stored d.b after set: %+v", b)
	}
}
