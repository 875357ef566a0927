package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

const routeByTable = "table_identifier: '${! @database_schema }_replica.${! @table }'"

// TestLoadSplitsOneBatchByTarget: one batch for two tables is two loads, and
// each table gets exactly its rows.
func TestLoadSplitsOneBatchByTarget(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, "shop_replica", "orders", harness.TableOpts{NoBinlog: true})
	harness.CreateTable(t, srv, "shop_replica", "items", harness.TableOpts{NoBinlog: true})
	ls := startLoadStream(t, "", "", loadOutputYAML(srv, routeByTable))
	err := ls.write(t,
		changeMsg(`{"id":1,"name":"a","qty":1,"amount":"1.50"}`, "shop", "orders", "insert", 1000, 1),
		changeMsg(`{"id":7,"name":"x","qty":2,"amount":"9.00"}`, "shop", "items", "insert", 1000, 2),
		changeMsg(`{"id":2,"name":"b","qty":3,"amount":"2.00"}`, "shop", "orders", "insert", 1000, 3),
	)
	if err != nil {
		t.Fatal(err)
	}
	waitState(t, srv, "shop_replica", "orders", rows(row("1", "a", "1", "1.50"), row("2", "b", "3", "2.00")), 10*time.Second)
	waitState(t, srv, "shop_replica", "items", rows(row("7", "x", "2", "9.00")), 10*time.Second)
}

// TestLoadAppliesDeletesAndUpdates: delete removes the key, update_before is
// dropped and update_after upserts.
func TestLoadAppliesDeletesAndUpdates(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, "shop_replica", "orders", harness.TableOpts{NoBinlog: true})
	ls := startLoadStream(t, "", "", loadOutputYAML(srv, routeByTable))
	if err := ls.write(t,
		changeMsg(`{"id":1,"name":"a","qty":1,"amount":"1.00"}`, "shop", "orders", "read", 0, 0),
		changeMsg(`{"id":2,"name":"b","qty":2,"amount":"2.00"}`, "shop", "orders", "read", 0, 0),
		changeMsg(`{"id":3,"name":"c","qty":3,"amount":"3.00"}`, "shop", "orders", "read", 0, 0),
	); err != nil {
		t.Fatal(err)
	}
	if err := ls.write(t,
		changeMsg(`{"id":1,"name":"a","qty":1,"amount":"1.00"}`, "shop", "orders", "update_before", 2000, 1),
		changeMsg(`{"id":1,"name":"a2","qty":10,"amount":"1.00"}`, "shop", "orders", "update_after", 2000, 1),
		changeMsg(`{"id":2,"name":"b","qty":2,"amount":"2.00"}`, "shop", "orders", "delete", 2000, 2),
		changeMsg(`{"id":4,"name":"d","qty":4,"amount":"4.00"}`, "shop", "orders", "insert", 2000, 3),
	); err != nil {
		t.Fatal(err)
	}
	waitState(t, srv, "shop_replica", "orders", rows(row("1", "a2", "10", "1.00"), row("3", "c", "3", "3.00"), row("4", "d", "4", "4.00")), 10*time.Second)
}

// TestLoadDeleteIntoDuplicateKeyTableFails: the batch is refused with the
// table's name, and nothing is loaded.
func TestLoadDeleteIntoDuplicateKeyTableFails(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, "log", "events", harness.TableOpts{Duplicate: true, NoBinlog: true})
	ls := startLoadStream(t, "", "", loadOutputYAML(srv, "table_identifier: log.events"))
	err := ls.write(t,
		changeMsg(`{"id":1,"name":"a","qty":1,"amount":"1.00"}`, "shop", "orders", "insert", 10, 1),
		changeMsg(`{"id":1,"name":"a","qty":1,"amount":"1.00"}`, "shop", "orders", "delete", 11, 1),
	)
	if err == nil || !strings.Contains(err.Error(), "log.events") || !strings.Contains(err.Error(), "DUPLICATE KEY") {
		t.Fatalf("delete into a DUPLICATE KEY table: %v", err)
	}
	if n := countRows(t, srv, "log", "events"); n != 0 {
		t.Fatalf("%d rows loaded from a refused batch", n)
	}
}

// TestLoadPartialColumns updates only the listed columns.
func TestLoadPartialColumns(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, "shop", "orders", harness.TableOpts{NoBinlog: true})
	harness.Exec(t, srv, "INSERT INTO shop.orders VALUES (1, 'a', 1, 1.00), (2, 'b', 2, 2.00)")
	ls := startLoadStream(t, "", "", loadOutputYAML(srv, "table_identifier: shop.orders", `cdc: "false"`, "columns: id,qty", "partial_columns: true"))
	if err := ls.write(t, changeMsg(`{"id":1,"qty":70}`, "", "", "", 0, 0)); err != nil {
		t.Fatal(err)
	}
	waitState(t, srv, "shop", "orders", rows(row("1", "a", "70", "1.00"), row("2", "b", "2", "2.00")), 10*time.Second)
}

// TestLoadTwoPhaseCommit: the targets of a batch become visible together;
// when one fails, the other's pre-committed load is aborted.
func TestLoadTwoPhaseCommit(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, "shop_replica", "orders", harness.TableOpts{NoBinlog: true})
	harness.CreateTable(t, srv, "shop_replica", "items", harness.TableOpts{NoBinlog: true})
	ls := startLoadStream(t, "", "", loadOutputYAML(srv, routeByTable, "two_phase_commit: true", "retry_in_order: false"))
	if err := ls.write(t,
		changeMsg(`{"id":1,"name":"a","qty":1,"amount":"1.00"}`, "shop", "orders", "insert", 100, 1),
		changeMsg(`{"id":2,"name":"b","qty":2,"amount":"2.00"}`, "shop", "items", "insert", 100, 2),
	); err != nil {
		t.Fatal(err)
	}
	waitState(t, srv, "shop_replica", "orders", rows(row("1", "a", "1", "1.00")), 10*time.Second)
	waitState(t, srv, "shop_replica", "items", rows(row("2", "b", "2", "2.00")), 10*time.Second)

	// shop_replica.missing does not exist: its load fails after orders
	// pre-committed, and the orders load must never become visible.
	err := ls.write(t,
		changeMsg(`{"id":5,"name":"e","qty":5,"amount":"5.00"}`, "shop", "orders", "insert", 200, 1),
		changeMsg(`{"id":6,"name":"f","qty":6,"amount":"6.00"}`, "shop", "missing", "insert", 200, 2),
	)
	if err == nil || !strings.Contains(err.Error(), "shop_replica.missing") {
		t.Fatalf("load into a missing table: %v", err)
	}
	time.Sleep(500 * time.Millisecond)
	if n := countRows(t, srv, "shop_replica", "orders"); n != 1 {
		t.Fatalf("orders has %d rows: the pre-committed load of a failed batch became visible", n)
	}
}

// TestLoadGroupCommit: sync_mode answers once rows are visible, async_mode
// makes them visible soon after.
func TestLoadGroupCommit(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, "shop", "sync", harness.TableOpts{NoBinlog: true})
	harness.CreateTable(t, srv, "shop", "async", harness.TableOpts{NoBinlog: true})
	syncLoad := startLoadStream(t, "", "", loadOutputYAML(srv, "table_identifier: shop.sync", "group_commit: sync_mode", `cdc: "false"`))
	if err := syncLoad.write(t, changeMsg(`{"id":1,"name":"a","qty":1,"amount":"1.00"}`, "", "", "", 0, 0)); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, srv, "shop", "sync"); n != 1 {
		t.Fatalf("sync_mode acked before its row was visible: %d rows", n)
	}
	asyncLoad := startLoadStream(t, "", "", loadOutputYAML(srv, "table_identifier: shop.async", "group_commit: async_mode", `cdc: "false"`))
	if err := asyncLoad.write(t, changeMsg(`{"id":2,"name":"b","qty":2,"amount":"2.00"}`, "", "", "", 0, 0)); err != nil {
		t.Fatal(err)
	}
	waitState(t, srv, "shop", "async", rows(row("2", "b", "2", "2.00")), 20*time.Second)
}

// binlogToLoad runs one doris_binlog over the source tables into doris_load.
func binlogToLoad(t *testing.T, srv *dorissim.Server, tables []string, outputExtra ...string) *loadStream {
	t.Helper()
	input := harness.SelectYAML(srv, "tables: ["+strings.Join(tables, ", ")+"]", "scan_mode: initial", "batch_size: 50")
	return startLoadStream(t, input, harness.MemoryCache, loadOutputYAML(srv, outputExtra...))
}

// TestLoadReplicatesTwoTablesThroughBinlog: one doris_binlog over two tables
// (its batches mix them) into one doris_load that routes by table: both
// replicas equal their sources, deletes included.
func TestLoadReplicatesTwoTablesThroughBinlog(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	for _, tbl := range []string{"orders", "items"} {
		harness.CreateTable(t, srv, "shop", tbl, harness.TableOpts{})
		harness.CreateTable(t, srv, "shop_replica", tbl, harness.TableOpts{NoBinlog: true})
	}
	wo, wi := harness.NewWorkload(srv, "shop", "orders", 21), harness.NewWorkload(srv, "shop", "items", 22)
	if err := wo.Insert(ctxTimeout(t, 30*time.Second), 80); err != nil {
		t.Fatal(err)
	}
	binlogToLoad(t, srv, []string{"shop.orders", "shop.items"}, routeByTable)
	runWorkload(t, wo, 30)
	runWorkload(t, wi, 30)
	for _, tbl := range []string{"orders", "items"} {
		want := harness.TableState(t, srv, "shop", tbl, "id", cols...)
		waitState(t, srv, "shop_replica", tbl, want, 60*time.Second)
	}
}

// TestLoadFailingLoadIsRetriedNeverDropped: loads fail while the target is
// missing; once it exists, the retried batches bring it level with the
// source, nothing dropped.
func TestLoadFailingLoadIsRetriedNeverDropped(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, "shop", "orders", harness.TableOpts{})
	w := harness.NewWorkload(srv, "shop", "orders", 5)
	if err := w.Insert(ctxTimeout(t, 30*time.Second), 40); err != nil {
		t.Fatal(err)
	}
	binlogToLoad(t, srv, []string{"shop.orders"}, routeByTable, "request_retries: 2")
	runWorkload(t, w, 20)
	time.Sleep(3 * time.Second) // several failed attempts
	harness.CreateTable(t, srv, "shop_replica", "orders", harness.TableOpts{NoBinlog: true})
	runWorkload(t, w, 20)
	want := harness.TableState(t, srv, "shop", "orders", "id", cols...)
	waitState(t, srv, "shop_replica", "orders", want, 60*time.Second)
}

// TestLoadSequenceColumn: with sequence_column, an older change loaded after
// a newer one (a replay, a reordered retry) changes nothing, deletes
// included.
func TestLoadSequenceColumn(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.Exec(t, srv, "CREATE DATABASE shop_replica",
		"CREATE TABLE shop_replica.orders (`id` BIGINT NOT NULL, `name` VARCHAR(64), `qty` INT, `amount` DECIMAL(10, 2), `_src_tso` BIGINT) "+
			"UNIQUE KEY(`id`) DISTRIBUTED BY HASH(`id`) BUCKETS 2 PROPERTIES (\"replication_num\" = \"1\", \"function_column.sequence_col\" = \"_src_tso\")")
	ls := startLoadStream(t, "", "", loadOutputYAML(srv, routeByTable, "sequence_column: _src_tso"))
	steps := [][]struct {
		body, op string
		tso      int64
	}{
		{{`{"id":1,"name":"new","qty":3,"amount":"3.00"}`, "update_after", 300}, {`{"id":2,"name":"gone","qty":1,"amount":"1.00"}`, "delete", 400}},
		// Older changes of both keys arrive afterwards.
		{{`{"id":1,"name":"old","qty":2,"amount":"2.00"}`, "update_after", 200}, {`{"id":2,"name":"back","qty":9,"amount":"9.00"}`, "insert", 350}},
		{{`{"id":3,"name":"snap","qty":5,"amount":"5.00"}`, "read", 0}},
	}
	for i, step := range steps {
		var msgs []*service.Message
		for j, c := range step {
			msgs = append(msgs, changeMsg(c.body, "shop", "orders", c.op, c.tso, int64(j+1)))
		}
		if err := ls.write(t, msgs...); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	waitState(t, srv, "shop_replica", "orders", rows(row("1", "new", "3", "3.00"), row("3", "snap", "5", "5.00")), 10*time.Second)
}

// TestLoadTransportFaults: a 500, a load whose answer is lost after it
// committed, and a "Publish Timeout" neither fail the batches nor load any
// row twice into a DUPLICATE KEY table.
func TestLoadTransportFaults(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, "log", "events", harness.TableOpts{Duplicate: true, NoBinlog: true})
	ls := startLoadStream(t, "", "", loadOutputYAML(srv, "table_identifier: log.events", "request_retries: 3"))
	srv.SetFaults(dorissim.Faults{StreamLoadHTTPErrors: 1, StreamLoadLostAnswers: 1, StreamLoadPublishTimeouts: 1})
	for i := range 3 {
		id := int64(i + 1)
		body := fmt.Sprintf(`{"id":%d,"name":"e%d","qty":1,"amount":"1.00"}`, id, id)
		if err := ls.write(t, changeMsg(body, "src", "events", "insert", 1000+id, 1)); err != nil {
			t.Fatalf("batch %d: %v", i, err)
		}
	}
	if n := countRows(t, srv, "log", "events"); n != 3 {
		t.Fatalf("%d rows after three one-row batches through faults, want 3", n)
	}
	// The 500 and the lost answer each cost one more attempt: without them
	// the faults did not fire and the test proved nothing.
	if n := srv.Stats().HTTP["PUT /api/{db}/{table}/_stream_load"]; n <= 3 {
		t.Fatalf("%d stream loads for three batches: the faults were never hit", n)
	}
}
