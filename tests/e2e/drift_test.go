package e2e

import (
	"encoding/json"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// schemaColumns is the column list and fingerprint of an event's schema.
func schemaColumns(t *testing.T, ev harness.Event) ([]string, string) {
	t.Helper()
	m, ok := ev.Meta["schema"].(map[string]any)
	if !ok {
		t.Fatalf("event %+v has no schema", ev)
	}
	var cols []string
	for _, c := range m["children"].([]any) {
		cols = append(cols, c.(map[string]any)["name"].(string))
	}
	fp, _ := m["fingerprint"].(string)
	return cols, fp
}

// bodyColumns is the sorted keys of an event's body.
func bodyColumns(ev harness.Event) []string {
	var cols []string
	for k := range ev.Row {
		cols = append(cols, k)
	}
	sort.Strings(cols)
	return cols
}

// checkSchemaMatchesBody: the schema describes exactly the body's columns.
func checkSchemaMatchesBody(t *testing.T, ev harness.Event) []string {
	t.Helper()
	cols, _ := schemaColumns(t, ev)
	sorted := slices.Clone(cols)
	sort.Strings(sorted)
	if !slices.Equal(sorted, bodyColumns(ev)) {
		t.Errorf("%s of id %v: schema columns %v, body columns %v", ev.Operation, ev.Row["id"], cols, bodyColumns(ev))
	}
	return cols
}

// waitSnapshotOver waits until e2e.t has left its snapshot. A row inserted
// earlier goes to whichever of the 4 buckets its key hashes to: with that
// bucket's split still unread it comes once as a snapshot row and once from
// the binlog (both right in initial mode), and a stop leaves splits for the
// next run to read first.
func waitSnapshotOver(t *testing.T, run *harness.Running) {
	t.Helper()
	harness.WaitFor(t, 30*time.Second, "the end of the snapshot", func() bool {
		st := harness.StoredState(t, run, harness.CheckpointKey("e2e", "t"))
		return st != nil && st.Tables["e2e.t"] != nil && st.Tables["e2e.t"].Phase == checkpoint.PhaseBinlog
	})
}

func idOf(ev harness.Event) string { return string(ev.Row["id"].(json.Number)) }

// TestSchemaDriftLive: ADD COLUMN then DROP COLUMN while the binlog is
// followed. Each event carries the schema of the table version it was
// written under, so the fingerprint changes on exactly the first event after
// each change, and a new column's default shows in the rows written after.
func TestSchemaDriftLive(t *testing.T) {
	srv := simWithOneRow(t)
	col := &harness.Collector{}
	run := harness.RunStream(t, harness.StreamConfig{Input: harness.InputYAML(srv, "e2e.t", "scan_mode: initial"), Resources: harness.MemoryCache}, col)
	col.WaitFor(t, 30*time.Second, "the snapshot", func(evs []harness.Event) bool { return len(evs) >= 1 })
	waitSnapshotOver(t, run)
	harness.Exec(t, srv, "INSERT INTO e2e.t VALUES (2, 'b', 2, 20.00)")
	col.WaitFor(t, 30*time.Second, "row 2", func(evs []harness.Event) bool { return len(evs) >= 2 })
	harness.Exec(t, srv, "ALTER TABLE e2e.t ADD COLUMN w INT DEFAULT '7'", "INSERT INTO e2e.t (id, name, qty, amount) VALUES (3, 'c', 3, 30.00)")
	col.WaitFor(t, 30*time.Second, "row 3", func(evs []harness.Event) bool { return len(evs) >= 3 })
	harness.Exec(t, srv, "ALTER TABLE e2e.t DROP COLUMN qty", "INSERT INTO e2e.t (id, name, amount) VALUES (4, 'd', 40.00)")
	evs := col.WaitFor(t, 30*time.Second, "row 4", func(evs []harness.Event) bool { return len(evs) >= 4 })

	wantCols := [][]string{
		{"id", "name", "qty", "amount"}, {"id", "name", "qty", "amount"},
		{"id", "name", "qty", "amount", "w"}, {"id", "name", "amount", "w"},
	}
	var fps []string
	for i, ev := range evs[:4] {
		if idOf(ev) != []string{"1", "2", "3", "4"}[i] {
			t.Fatalf("event %d is id %s", i, idOf(ev))
		}
		cols := checkSchemaMatchesBody(t, ev)
		if !slices.Equal(cols, wantCols[i]) {
			t.Errorf("id %s: schema columns %v, want %v", idOf(ev), cols, wantCols[i])
		}
		_, fp := schemaColumns(t, ev)
		fps = append(fps, fp)
	}
	if fps[0] != fps[1] || fps[1] == fps[2] || fps[2] == fps[3] {
		t.Errorf("fingerprints %v: want one per table version, changing at ids 3 and 4", fps)
	}
	checkRow(t, evs[2], map[string]string{"w": "7"})
	checkRow(t, evs[3], map[string]string{"w": "7"})
}

// TestSchemaDriftBacklogAcrossRestart: the changes, both DDLs included,
// happen while the input is down, so the restarted input reads them as a
// backlog in one window. Doris answers an @incr window with the table's
// current columns, so every row of that window, old or new, is one shape:
// the schema must describe exactly that shape, be the new version's, and
// differ from the one the first run attached.
func TestSchemaDriftBacklogAcrossRestart(t *testing.T) {
	srv := simWithOneRow(t)
	cache := harness.FileCache(t.TempDir())
	in := harness.InputYAML(srv, "e2e.t", "scan_mode: initial")
	first := &harness.Collector{}
	r1 := harness.RunStream(t, harness.StreamConfig{Input: in, Resources: cache}, first)
	waitSnapshotOver(t, r1) // else the restart would finish the snapshot first
	harness.Exec(t, srv, "INSERT INTO e2e.t VALUES (2, 'b', 2, 20.00)")
	before := first.WaitFor(t, 30*time.Second, "rows 1 and 2", func(evs []harness.Event) bool { return len(evs) >= 2 })
	if err := r1.Stop(20 * time.Second); err != nil {
		t.Fatal(err)
	}
	_, oldFP := schemaColumns(t, before[1])

	harness.Exec(t, srv, "INSERT INTO e2e.t VALUES (3, 'c', 3, 30.00)",
		"ALTER TABLE e2e.t ADD COLUMN w INT DEFAULT '7'",
		"INSERT INTO e2e.t (id, name, qty, amount) VALUES (4, 'd', 4, 40.00)",
		"ALTER TABLE e2e.t DROP COLUMN qty",
		"INSERT INTO e2e.t (id, name, amount, w) VALUES (5, 'e', 50.00, 8)")
	second := &harness.Collector{}
	harness.RunStream(t, harness.StreamConfig{Input: in, Resources: cache}, second)
	evs := second.WaitFor(t, 30*time.Second, "the backlog", func(evs []harness.Event) bool { return len(evs) >= 3 })
	for i, ev := range evs {
		if ev.Phase != "binlog" || idOf(ev) != []string{"3", "4", "5"}[i] {
			t.Fatalf("second run event %d: %s id %s", i, ev.Phase, idOf(ev))
		}
		cols := checkSchemaMatchesBody(t, ev)
		if !slices.Equal(cols, []string{"id", "name", "amount", "w"}) {
			t.Errorf("id %s: schema columns %v, want the current table's", idOf(ev), cols)
		}
		if _, fp := schemaColumns(t, ev); fp == oldFP {
			t.Errorf("id %s carries the first run's schema fingerprint", idOf(ev))
		}
	}
	checkRow(t, evs[1], map[string]string{"w": "7"})
	checkRow(t, evs[2], map[string]string{"w": "8"})
}
