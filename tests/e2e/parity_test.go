package e2e

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// TestSnapshotBinlogParity: a row of every type gives byte-identical bodies
// and the same schema whether it was read by the snapshot (read), or from
// the binlog as a delete (the pre-delete values) and as an insert of the
// same values again. Row 2 is all NULLs. A Bloblang mapping reads @schema
// and @key_columns, as schema-aware processors do.
func TestSnapshotBinlogParity(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	row2 := "INSERT INTO e2e.types (k) VALUES (2)"
	harness.Exec(t, srv, "CREATE DATABASE e2e", typesDDL, typesRow1, row2)
	time.Sleep(1100 * time.Millisecond)
	col := &harness.Collector{}
	mapping := "mutation: |\n  meta schema_json = @schema.format_json(no_indent: true)\n  meta keys_json = @key_columns.format_json(no_indent: true)\n"
	harness.RunStream(t, harness.StreamConfig{Input: harness.InputYAML(srv, "e2e.types", "scan_mode: initial"),
		Resources: harness.MemoryCache, Processor: mapping}, col)
	col.WaitFor(t, 30*time.Second, "the snapshot", func(evs []harness.Event) bool { return len(evs) >= 2 })
	harness.Exec(t, srv, "DELETE FROM e2e.types WHERE k IN (1, 2)")
	harness.Exec(t, srv, typesRow1, row2)
	evs := col.WaitFor(t, 30*time.Second, "the binlog", func(evs []harness.Event) bool { return len(evs) >= 6 })

	byKey := map[string][]harness.Event{}
	for _, ev := range evs {
		k := string(ev.Row["k"].(json.Number))
		byKey[k] = append(byKey[k], ev)
	}
	for k, list := range byKey {
		if len(list) != 3 || list[0].Operation != "read" || list[1].Operation != "delete" || list[2].Operation != "insert" {
			t.Fatalf("row %s: operations %v, want read, delete, insert", k, operations(list))
		}
		for _, ev := range list[1:] {
			if ev.Body != list[0].Body {
				t.Errorf("row %s: %s body\n%s\ndiffers from the snapshot's\n%s", k, ev.Operation, ev.Body, list[0].Body)
			}
			if !reflect.DeepEqual(ev.Meta["schema"], list[0].Meta["schema"]) {
				t.Errorf("row %s: %s schema %v differs from the snapshot's %v", k, ev.Operation, ev.Meta["schema"], list[0].Meta["schema"])
			}
		}
	}

	var sch struct {
		Type        string           `json:"type"`
		Fingerprint string           `json:"fingerprint"`
		Children    []map[string]any `json:"children"`
	}
	if err := json.Unmarshal(metaBytes(evs[0].Meta["schema_json"]), &sch); err != nil {
		t.Fatalf("@schema through Bloblang: %v", err)
	}
	if sch.Type != "OBJECT" || sch.Fingerprint == "" || len(sch.Children) != 19 {
		t.Fatalf("@schema = %+v, want an OBJECT with a fingerprint and 19 children", sch)
	}
	want := map[string]string{
		"k":   `{"name":"k","type":"INT64"}`,
		"b":   `{"name":"b","optional":true,"type":"BOOLEAN"}`,
		"li":  `{"name":"li","optional":true,"type":"BIG_DECIMAL"}`,
		"dec": `{"name":"dec","optional":true,"precision":10,"scale":2,"type":"DECIMAL"}`,
		"dt":  `{"name":"dt","optional":true,"type":"DATE"}`,
		"dtm": `{"adjust_to_utc":false,"name":"dtm","optional":true,"type":"TIMESTAMP","unit":"MILLIS"}`,
		"dt0": `{"adjust_to_utc":false,"name":"dt0","optional":true,"type":"TIMESTAMP","unit":"SECONDS"}`,
	}
	names := make([]string, len(sch.Children))
	for i, c := range sch.Children {
		names[i], _ = c["name"].(string)
		w, ok := want[names[i]]
		if !ok {
			continue
		}
		delete(c, "fingerprint")
		got, _ := json.Marshal(c)
		if string(got) != w {
			t.Errorf("schema of %s: %s, want %s", names[i], got, w)
		}
	}
	if got := strings.Join(names, ","); got != "k,b,ti,si,i,li,f,d,dec,dt,dtm,dt0,c,vc,s,j,a,m,st" {
		t.Errorf("schema columns %s, want body order", got)
	}
	for _, c := range sch.Children {
		if c["name"] == "st" {
			if kids, _ := c["children"].([]any); len(kids) != 2 {
				t.Errorf("STRUCT schema %v, want 2 children", c)
			}
		}
	}
	if keys := string(metaBytes(evs[0].Meta["keys_json"])); keys != `["k"]` {
		t.Errorf("@key_columns = %v, want [\"k\"]", keys)
	}
}

// metaBytes is a metadata value set by Bloblang: format_json gives bytes.
func metaBytes(v any) []byte {
	switch x := v.(type) {
	case []byte:
		return x
	case string:
		return []byte(x)
	}
	return nil
}
