package input

import (
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
)

const schemaDDL = "CREATE TABLE shop.orders (id BIGINT, v INT) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1 " +
	`PROPERTIES ("binlog.enable" = "true", "binlog.format" = "ROW")`

// resultSchema is an @incr result's Arrow schema with columns names and
// the hidden binlog columns, which never count as a schema change.
func resultSchema(names ...string) *arrow.Schema {
	fields := []arrow.Field{{Name: "__DORIS_BINLOG_TSO__", Type: arrow.PrimitiveTypes.Int64}}
	for _, n := range names {
		fields = append(fields, arrow.Field{Name: n, Type: arrow.PrimitiveTypes.Int64, Nullable: true})
	}
	return arrow.NewSchema(fields, nil)
}

// A result with the known columns keeps the schema; after a light ADD
// COLUMN the DDL is read again, the change logged, and the new schema used.
func TestSchemaForFollowsALightSchemaChange(t *testing.T) {
	s, ti, sink := simTable(t, "shop", "orders", "CREATE DATABASE shop", schemaDDL)
	ctx := testCtx(t)
	if meta, err := ti.schemaFor(ctx, nil, resultSchema("id", "v")); meta != nil || err != nil {
		t.Fatalf("before the DDL is read: %v, %v; want no schema (a snapshot without SHOW CREATE TABLE)", meta, err)
	}
	if _, err := ti.properties(ctx, false); err != nil {
		t.Fatal(err)
	}
	known, err := ti.schemaFor(ctx, nil, resultSchema("ID", "v")) // Doris names match case-insensitively
	if err != nil || known == nil {
		t.Fatalf("known columns: %v, %v", known, err)
	}
	if again, _ := ti.schemaFor(ctx, nil, resultSchema("v", "id")); again != known {
		t.Fatalf("the same columns built a new schema; want it built once per DDL read")
	}
	if err := s.Exec(ctx, "ALTER TABLE shop.orders ADD COLUMN w BIGINT NULL"); err != nil {
		t.Fatal(err)
	}
	fresh, err := ti.schemaFor(ctx, nil, resultSchema("id", "v", "w"))
	if err != nil || fresh == nil || fresh == known || fresh.Fingerprint() == known.Fingerprint() {
		t.Fatalf("after ADD COLUMN: %v, %v; want a new schema", fresh, err)
	}
	if a, r := fresh.Diff([]string{"id", "v", "w"}); len(a)+len(r) != 0 {
		t.Fatalf("the new schema lacks %v, has extra %v", a, r)
	}
	if n := len(sink.Lines("INFO", "Schema of shop.orders changed: columns added [w], removed []")); n != 1 {
		t.Errorf("%d schema change logs, want 1", n)
	}
	if got, _ := ti.schemaFor(ctx, nil, resultSchema("id", "v", "w")); got != fresh {
		t.Fatalf("the new schema is not kept for the next result")
	}
}

// A result that fits neither the known schema nor the current DDL stops
// the input (reading it again gives the same columns); a DDL that cannot
// be read is retried.
func TestSchemaForRejectsUnknownColumns(t *testing.T) {
	s, ti, _ := simTable(t, "shop", "orders", "CREATE DATABASE shop", schemaDDL)
	ctx := testCtx(t)
	if _, err := ti.properties(ctx, false); err != nil {
		t.Fatal(err)
	}
	_, err := ti.schemaFor(ctx, nil, resultSchema("id", "bogus"))
	if !doris.IsPermanent(err) {
		t.Fatalf("unknown column: %v, want a permanent error", err)
	}
	for _, want := range []string{"shop.orders", "added [bogus]", "missing [v]", "match neither its known schema nor its current DDL"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	s.SetFaults(dorissim.Faults{Refuse: "http", RefuseFor: time.Minute})
	_, err = ti.schemaFor(ctx, nil, resultSchema("id", "v", "w"))
	if err == nil || doris.IsPermanent(err) || !strings.Contains(err.Error(), "schema of shop.orders changed (columns added [w], removed []) and could not be read again") {
		t.Fatalf("DDL unreadable: %v, want a retryable error naming the table and the change", err)
	}
}

// With a column selection the schema holds those columns only.
func TestSchemaForSelectedColumns(t *testing.T) {
	_, ti, _ := simTable(t, "shop", "orders", "CREATE DATABASE shop", schemaDDL)
	ctx := testCtx(t)
	if _, err := ti.properties(ctx, false); err != nil {
		t.Fatal(err)
	}
	meta, err := ti.schemaFor(ctx, []string{"id"}, resultSchema("id"))
	if err != nil || meta == nil {
		t.Fatalf("selected id: %v, %v", meta, err)
	}
	if a, r := meta.Diff([]string{"id"}); len(a)+len(r) != 0 {
		t.Fatalf("selected schema lacks %v, has extra %v", a, r)
	}
	if _, err := ti.schemaFor(ctx, []string{"nope"}, resultSchema("nope")); err == nil {
		t.Fatalf("a selected column the table lacks built a schema")
	}
}
