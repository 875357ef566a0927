package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/schema"
	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// waitColumn waits until db.table has the column.
func waitColumn(t *testing.T, srv *dorissim.Server, db, table, column string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !slices.Contains(harness.TableColumns(t, srv, db, table), column) {
		if time.Now().After(deadline) {
			t.Fatalf("%s.%s has no column %s after %s", db, table, column, timeout)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// waitRows waits until db.table, read over columns, equals want.
func waitRows(t *testing.T, srv *dorissim.Server, db, table string, want map[string]harness.Row, timeout time.Duration, columns ...string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var diff string
	for time.Now().Before(deadline) {
		if diff = harness.Diff(want, harness.TableState(t, srv, db, table, "id", columns...)); diff == "" {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("%s.%s differs after %s:\n%s", db, table, timeout, diff)
}

// withSchema attaches a Common schema of the columns (id BIGINT and the
// others INT32 but amount, a DECIMAL(10,2)) as doris_binlog does.
func withSchema(m *service.Message, columns ...string) *service.Message {
	root := schema.Common{Name: "orders", Type: schema.Object}
	for _, c := range columns {
		child := schema.Common{Name: c, Type: schema.Int32, Optional: c != "id"}
		switch c {
		case "id":
			child.Type = schema.Int64
		case "name":
			child.Type = schema.String
		case "amount":
			child.Type = schema.Decimal
			child.Logical = &schema.LogicalParams{Decimal: &schema.DecimalParams{Precision: 10, Scale: 2}}
		}
		root.Children = append(root.Children, child)
	}
	m.MetaSetImmut("schema", service.ImmutableAny{V: root.ToAny()})
	return m
}

var colsExtra = append(slices.Clone(cols), "extra")

// TestSchemaEvolutionOffStopsOnAMissingColumn: without schema_evolution, a
// change whose schema has a column the target lacks fails its batch with an
// error naming the target and the column, and nothing of the batch is
// loaded; once the column is added by hand the same batch loads with it.
func TestSchemaEvolutionOffStopsOnAMissingColumn(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, "shop_replica", "orders", harness.TableOpts{NoBinlog: true})
	ls := startLoadStream(t, "", "", loadOutputYAML(srv, routeByTable, "retry_in_order: false"))
	old := withSchema(changeMsg(`{"id":1,"name":"a","qty":1,"amount":"1.00"}`, "shop", "orders", "insert", 100, 1), cols...)
	if err := ls.write(t, old); err != nil {
		t.Fatal(err)
	}
	batch := []*service.Message{
		withSchema(changeMsg(`{"id":2,"name":"b","qty":2,"amount":"2.00","extra":20}`, "shop", "orders", "insert", 200, 1), colsExtra...),
		withSchema(changeMsg(`{"id":1,"name":"a","qty":1,"amount":"1.00","extra":10}`, "shop", "orders", "update_after", 201, 1), colsExtra...),
	}
	err := ls.write(t, batch...)
	if err == nil || !strings.Contains(err.Error(), "shop_replica.orders") || !strings.Contains(err.Error(), "extra") {
		t.Fatalf("a change with a column the target lacks: %v", err)
	}
	if n := countRows(t, srv, "shop_replica", "orders"); n != 1 {
		t.Fatalf("%d rows in the target, want only the first batch's", n)
	}
	harness.Exec(t, srv, "ALTER TABLE shop_replica.orders ADD COLUMN extra INT")
	time.Sleep(rereadPause)
	if err := ls.write(t, batch...); err != nil {
		t.Fatalf("after adding the column: %v", err)
	}
	want := rows(harness.Row{"id": "1", "name": "a", "qty": "1", "amount": "1.00", "extra": "10"},
		harness.Row{"id": "2", "name": "b", "qty": "2", "amount": "2.00", "extra": "20"})
	waitRows(t, srv, "shop_replica", "orders", want, 10*time.Second, colsExtra...)
}

// rereadPause outlasts doris_load's pause between two reads of a target's
// columns.
const rereadPause = 1100 * time.Millisecond

// TestSchemaEvolutionOffBinlogStallsThenResumes: doris_binlog into
// doris_load without schema_evolution. After ADD COLUMN on the source, no
// row of the later changes reaches the target without the column; once the
// column is added to the target by hand, every value arrives.
func TestSchemaEvolutionOffBinlogStallsThenResumes(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, "shop", "orders", harness.TableOpts{})
	harness.CreateTable(t, srv, "shop_replica", "orders", harness.TableOpts{NoBinlog: true})
	w := harness.NewWorkload(srv, "shop", "orders", 31)
	if err := w.Insert(ctxTimeout(t, 30*time.Second), 20); err != nil {
		t.Fatal(err)
	}
	binlogToLoad(t, srv, []string{"shop.orders"}, routeByTable)
	waitState(t, srv, "shop_replica", "orders", harness.TableState(t, srv, "shop", "orders", "id", cols...), 60*time.Second)

	harness.Exec(t, srv, "ALTER TABLE shop.orders ADD COLUMN extra INT",
		"INSERT INTO shop.orders (id, name, qty, amount, extra) VALUES (1001, 'new', 1, 1.00, 7)",
		"UPDATE shop.orders SET extra = 8 WHERE id = 1")
	time.Sleep(5 * time.Second) // several attempts of the batch
	if _, ok := harness.TableState(t, srv, "shop_replica", "orders", "id", cols...)["1001"]; ok {
		t.Fatal("row 1001 was loaded into a target without its column extra")
	}
	harness.Exec(t, srv, "ALTER TABLE shop_replica.orders ADD COLUMN extra INT")
	waitRows(t, srv, "shop_replica", "orders", harness.TableState(t, srv, "shop", "orders", "id", colsExtra...), 60*time.Second, colsExtra...)
}

// TestSchemaEvolutionAddsColumnFromBinlog: with schema_evolution, ADD
// COLUMN on the source mid-stream is applied to the target before the
// first row holding the column, and every value of it arrives.
func TestSchemaEvolutionAddsColumnFromBinlog(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, "shop", "orders", harness.TableOpts{})
	harness.CreateTable(t, srv, "shop_replica", "orders", harness.TableOpts{NoBinlog: true})
	w := harness.NewWorkload(srv, "shop", "orders", 32)
	if err := w.Insert(ctxTimeout(t, 30*time.Second), 20); err != nil {
		t.Fatal(err)
	}
	binlogToLoad(t, srv, []string{"shop.orders"}, routeByTable, "schema_evolution:\n  enabled: true")
	waitState(t, srv, "shop_replica", "orders", harness.TableState(t, srv, "shop", "orders", "id", cols...), 60*time.Second)
	harness.Exec(t, srv, "ALTER TABLE shop.orders ADD COLUMN extra INT",
		"INSERT INTO shop.orders (id, name, qty, amount, extra) VALUES (1001, 'new', 1, 1.00, 7)",
		"UPDATE shop.orders SET extra = 8 WHERE id = 1")
	runWorkload(t, w, 10)
	waitColumn(t, srv, "shop_replica", "orders", "extra", 60*time.Second)
	waitRows(t, srv, "shop_replica", "orders", harness.TableState(t, srv, "shop", "orders", "id", colsExtra...), 60*time.Second, colsExtra...)
}

// TestSchemaEvolutionDropStaysDroppedAcrossReplay: with drop_columns, a
// column the messages' schema no longer has is dropped from the target;
// a restarted output that is given the older batches again (the same
// positions, so the same labels) does not add it back.
func TestSchemaEvolutionDropStaysDroppedAcrossReplay(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, "shop_replica", "orders", harness.TableOpts{NoBinlog: true})
	out := loadOutputYAML(srv, routeByTable, "schema_evolution:\n  enabled: true\n  drop_columns: true")
	older := func() []*service.Message {
		return []*service.Message{withSchema(changeMsg(`{"id":1,"name":"a","qty":1,"amount":"1.00","extra":10}`, "shop", "orders", "insert", 100, 1), colsExtra...)}
	}
	newer := func() []*service.Message {
		return []*service.Message{withSchema(changeMsg(`{"id":2,"name":"b","qty":2,"amount":"2.00"}`, "shop", "orders", "insert", 200, 1), cols...)}
	}
	first := startLoadStream(t, "", "", out)
	for i, b := range [][]*service.Message{older(), newer()} {
		if err := first.write(t, b...); err != nil {
			t.Fatalf("first run, batch %d: %v", i, err)
		}
	}
	if got := harness.TableColumns(t, srv, "shop_replica", "orders"); slices.Contains(got, "extra") {
		t.Fatalf("columns after the drop: %v", got)
	}
	// An older change, in a batch of its own (a label never loaded), after
	// the drop: loaded without the column, which stays dropped.
	late := withSchema(changeMsg(`{"id":4,"name":"d","qty":4,"amount":"4.00","extra":40}`, "shop", "orders", "insert", 150, 1), colsExtra...)
	if err := first.write(t, late); err != nil {
		t.Fatalf("first run, the late batch: %v", err)
	}
	if got := harness.TableColumns(t, srv, "shop_replica", "orders"); slices.Contains(got, "extra") {
		t.Fatalf("columns after an older change: %v", got)
	}
	if err := first.stream.StopWithin(10 * time.Second); err != nil {
		t.Fatal(err)
	}

	second := startLoadStream(t, "", "", out)
	third := []*service.Message{withSchema(changeMsg(`{"id":3,"name":"c","qty":3,"amount":"3.00"}`, "shop", "orders", "insert", 300, 1), cols...)}
	for i, b := range [][]*service.Message{older(), newer(), third} {
		if err := second.write(t, b...); err != nil {
			t.Fatalf("second run, batch %d: %v", i, err)
		}
		if got := harness.TableColumns(t, srv, "shop_replica", "orders"); !slices.Equal(got, cols) {
			t.Fatalf("columns after batch %d of the replay: %v, want %v", i, got, cols)
		}
	}
	want := rows(row("1", "a", "1", "1.00"), row("2", "b", "2", "2.00"), row("3", "c", "3", "3.00"), row("4", "d", "4", "4.00"))
	waitRows(t, srv, "shop_replica", "orders", want, 10*time.Second, cols...)
}

// typedSchema attaches a schema whose columns have the given Common types.
func typedSchema(m *service.Message, types map[string]schema.CommonType, columns ...string) *service.Message {
	root := schema.Common{Name: "orders", Type: schema.Object}
	for _, c := range columns {
		root.Children = append(root.Children, schema.Common{Name: c, Type: types[c], Optional: true})
	}
	m.MetaSetImmut("schema", service.ImmutableAny{V: root.ToAny()})
	return m
}

// TestSchemaEvolutionWidensAndStopsOnTheRest: with schema_evolution, an
// INT target column whose messages now carry INT64 is widened to BIGINT
// before the load and the large value arrives whole; a STRING into an INT
// column, and a wider key column, stop the batch naming the target, the
// column and both types, and load nothing.
func TestSchemaEvolutionWidensAndStopsOnTheRest(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, "shop_replica", "orders", harness.TableOpts{NoBinlog: true})
	harness.Exec(t, srv, "CREATE TABLE shop_replica.small (`id` INT NOT NULL, `qty` INT) UNIQUE KEY(`id`) DISTRIBUTED BY HASH(`id`) BUCKETS 1 PROPERTIES (\"replication_num\" = \"1\")")
	ls := startLoadStream(t, "", "", loadOutputYAML(srv, routeByTable, "retry_in_order: false", "schema_evolution:\n  enabled: true"))
	types := map[string]schema.CommonType{"id": schema.Int64, "name": schema.String, "qty": schema.Int64}
	wide := typedSchema(changeMsg(`{"id":1,"name":"a","qty":4294967296}`, "shop", "orders", "insert", 100, 1), types, "id", "name", "qty")
	if err := ls.write(t, wide); err != nil {
		t.Fatalf("INT64 into an INT column: %v", err)
	}
	if got := harness.TableState(t, srv, "shop_replica", "orders", "id", "id", "qty")["1"]["qty"]; got != "4294967296" {
		t.Fatalf("qty after the widening: %s", got)
	}

	types["qty"] = schema.String
	text := typedSchema(changeMsg(`{"id":2,"name":"b","qty":"many"}`, "shop", "orders", "insert", 200, 1), types, "id", "name", "qty")
	err := ls.write(t, text)
	for _, want := range []string{"shop_replica.orders", "qty", "bigint", "STRING"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("STRING into a BIGINT column: %v, want it to name %s", err, want)
		}
	}
	types["qty"] = schema.Int32
	key := typedSchema(changeMsg(`{"id":3,"qty":1}`, "shop", "small", "insert", 300, 1), types, "id", "qty")
	err = ls.write(t, key)
	for _, want := range []string{"shop_replica.small", "key column id", "int", "INT64"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("INT64 into an INT key column: %v, want it to name %s", err, want)
		}
	}
	if n := countRows(t, srv, "shop_replica", "orders") + countRows(t, srv, "shop_replica", "small"); n != 1 {
		t.Fatalf("%d rows loaded, want only the first", n)
	}
}

// TestSchemaCheckIgnoresColumnsTheBodiesDropped: a processor that removes
// a column from the bodies leaves the schema metadata as it was; with the
// target lacking that column, nothing is lost and the batch loads.
func TestSchemaCheckIgnoresColumnsTheBodiesDropped(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, "shop_replica", "orders", harness.TableOpts{NoBinlog: true})
	ls := startLoadStream(t, "", "", loadOutputYAML(srv, routeByTable, "retry_in_order: false"), "mapping: root = this.without(\"secret\")")
	m := withSchema(changeMsg(`{"id":1,"name":"a","qty":1,"amount":"1.00","secret":"s"}`, "shop", "orders", "insert", 100, 1), append(slices.Clone(cols), "secret")...)
	if err := ls.write(t, m); err != nil {
		t.Fatalf("a column removed from the bodies: %v", err)
	}
	waitRows(t, srv, "shop_replica", "orders", rows(row("1", "a", "1", "1.00")), 10*time.Second, cols...)
}

// TestSchemaEvolutionTwoPipelinesAddTheSameColumn: two outputs follow the
// same change into one target. The second finds the column added by the
// first ("already exists"), or by hand with another integer type
// ("Repeatedly add same column with different definition"), and loads.
func TestSchemaEvolutionTwoPipelinesAddTheSameColumn(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, "shop_replica", "orders", harness.TableOpts{NoBinlog: true})
	evolve := "schema_evolution:\n  enabled: true"
	a := startLoadStream(t, "", "", loadOutputYAML(srv, routeByTable, "label_prefix: a", evolve))
	b := startLoadStream(t, "", "", loadOutputYAML(srv, routeByTable, "label_prefix: b", evolve))
	first := func(id int) *service.Message {
		return withSchema(changeMsg(fmt.Sprintf(`{"id":%d,"name":"a","qty":1,"amount":"1.00"}`, id), "shop", "orders", "insert", int64(100+id), 1), cols...)
	}
	extra := func(id, v int) *service.Message {
		return withSchema(changeMsg(fmt.Sprintf(`{"id":%d,"name":"b","qty":2,"amount":"2.00","extra":%d}`, id, v), "shop", "orders", "insert", int64(200+id), 1), colsExtra...)
	}
	// Both read the target's columns now; the second's stay unread again
	// for a second, so it runs its own ADD COLUMN.
	for _, ls := range []*loadStream{a, b} {
		if err := ls.write(t, first(1)); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.write(t, extra(2, 20)); err != nil {
		t.Fatalf("first pipeline: %v", err)
	}
	if err := b.write(t, extra(3, 30)); err != nil {
		t.Fatalf("second pipeline, after the first added the column: %v", err)
	}

	harness.Exec(t, srv, "CREATE TABLE shop_replica.items (`id` BIGINT NOT NULL, `name` VARCHAR(64), `qty` INT, `amount` DECIMAL(10, 2)) "+
		"UNIQUE KEY(`id`) DISTRIBUTED BY HASH(`id`) BUCKETS 1 PROPERTIES (\"replication_num\" = \"1\")")
	item := func(m *service.Message) *service.Message { m.MetaSetMut("table", "items"); return m }
	if err := b.write(t, item(first(1))); err != nil {
		t.Fatal(err)
	}
	harness.Exec(t, srv, "ALTER TABLE shop_replica.items ADD COLUMN extra BIGINT")
	if err := b.write(t, item(extra(4, 40))); err != nil {
		t.Fatalf("a column added by hand with a wider type: %v", err)
	}
	want := rows(harness.Row{"id": "1", "name": "a", "qty": "1", "amount": "1.00", "extra": "NULL"},
		harness.Row{"id": "2", "name": "b", "qty": "2", "amount": "2.00", "extra": "20"},
		harness.Row{"id": "3", "name": "b", "qty": "2", "amount": "2.00", "extra": "30"})
	waitRows(t, srv, "shop_replica", "orders", want, 10*time.Second, colsExtra...)
	want = rows(harness.Row{"id": "1", "name": "a", "qty": "1", "amount": "1.00", "extra": "NULL"},
		harness.Row{"id": "4", "name": "b", "qty": "2", "amount": "2.00", "extra": "40"})
	waitRows(t, srv, "shop_replica", "items", want, 10*time.Second, colsExtra...)
}
