package e2e

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// typesDDL is a table of every supported Doris type, with before-images so
// that a delete carries the whole row; typesRow1 fills every column.
const typesDDL = "CREATE TABLE e2e.types (\n" +
	"  k BIGINT NOT NULL, b BOOLEAN, ti TINYINT, si SMALLINT, i INT, li LARGEINT, f FLOAT, d DOUBLE,\n" +
	"  dec DECIMAL(10, 2), dt DATE, dtm DATETIME(3), dt0 DATETIME, c CHAR(4), vc VARCHAR(20), s STRING, j JSON,\n" +
	"  a ARRAY<INT>, m MAP<STRING, INT>, st STRUCT<x:INT, y:STRING>\n" +
	") UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2\n" +
	"PROPERTIES (\"binlog.enable\" = \"true\", \"binlog.format\" = \"ROW\", \"binlog.need_historical_value\" = \"true\")"

const typesRow1 = "INSERT INTO e2e.types VALUES (1, true, -8, 300, 70000, 170141183460469231731687303715884105727, 1.5, -2.25, 12.3, '2026-09-14', '2026-09-14 10:05:06.789', '2026-09-14 10:05:06', 'ab', 'v\"q', 'multi\nline', '{\"a\": [1, 2]}', [1, 2, 3], {'x': 1}, '{\"x\": 1, \"y\": \"y\"}')"

// TestValueEncodings checks the message body of every Doris column type, in
// the snapshot and in the binlog, against the encodings users rely on.
func TestValueEncodings(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.Exec(t, srv, "CREATE DATABASE e2e", typesDDL, typesRow1)
	time.Sleep(1100 * time.Millisecond)
	col := &harness.Collector{}
	harness.RunStream(t, harness.StreamConfig{Input: harness.InputYAML(srv, "e2e.types", "scan_mode: initial"), Resources: harness.MemoryCache}, col)
	col.WaitFor(t, 30*time.Second, "the snapshot row", func(evs []harness.Event) bool { return len(evs) >= 1 })
	harness.Exec(t, srv, "INSERT INTO e2e.types (k, li, dec, dtm) VALUES (2, -5, -0.5, '2026-01-02 03:04:05')")
	evs := col.WaitFor(t, 30*time.Second, "the binlog row", func(evs []harness.Event) bool { return len(evs) >= 2 })

	want := map[string]string{
		"k": `1`, "b": `true`, "ti": `-8`, "si": `300`, "i": `70000`, "li": `"170141183460469231731687303715884105727"`,
		"f": `1.5`, "d": `-2.25`, "dec": `"12.30"`, "dt": `"2026-09-14"`, "dtm": `"2026-09-14 10:05:06.789"`,
		"dt0": `"2026-09-14 10:05:06"`, "c": `"ab"`, "vc": `"v\"q"`, "s": `"multi\nline"`, "j": `{"a":[1,2]}`,
		"a": `[1,2,3]`, "m": `{"x":1}`, "st": `{"x":1,"y":"y"}`,
	}
	checkRow(t, evs[0], want)
	checkRow(t, evs[1], map[string]string{"k": `2`, "li": `"-5"`, "dec": `"-0.50"`, "dtm": `"2026-01-02 03:04:05.000"`, "b": `null`, "a": `null`})
}

func checkRow(t *testing.T, ev harness.Event, want map[string]string) {
	t.Helper()
	for col, w := range want {
		got, err := json.Marshal(ev.Row[col])
		if err != nil {
			t.Fatal(err)
		}
		var a, b any
		_ = json.Unmarshal(got, &a)
		_ = json.Unmarshal([]byte(w), &b)
		ga, _ := json.Marshal(a)
		gb, _ := json.Marshal(b)
		if string(ga) != string(gb) {
			t.Errorf("column %s: got %s, want %s (row %v)", col, got, w, ev.Row)
		}
	}
}

// TestSnapshotDatetimePrecision: in snapshot mode too, DATETIME(p) has
// exactly p fractional digits, which the Arrow unit (ms for p = 1..3) alone
// cannot tell.
func TestSnapshotDatetimePrecision(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.Exec(t, srv, "CREATE DATABASE e2e",
		"CREATE TABLE e2e.dt (k BIGINT NOT NULL, d2 DATETIME(2)) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1",
		"INSERT INTO e2e.dt VALUES (1, '2026-09-14 10:05:06.78')")
	col := &harness.Collector{}
	r := harness.RunStream(t, harness.StreamConfig{Input: harness.InputYAML(srv, "e2e.dt", "scan_mode: snapshot"), Resources: harness.MemoryCache}, col)
	if err := r.Wait(t, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	evs := col.Events()
	if len(evs) != 1 {
		t.Fatalf("%d rows", len(evs))
	}
	checkRow(t, evs[0], map[string]string{"d2": `"2026-09-14 10:05:06.78"`})
}
