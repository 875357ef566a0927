package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// columnTypes maps db.table's columns to their types as SHOW CREATE TABLE
// prints them.
func columnTypes(t *testing.T, srv *dorissim.Server, db, table string) map[string]string {
	t.Helper()
	res, err := srv.Query(ctxTimeout(t, 30*time.Second), "SHOW CREATE TABLE "+doris.QualifiedTable(db, table))
	if err != nil || len(res) != 1 || len(res[0]) < 2 {
		t.Fatalf("show create table %s.%s: %v %v", db, table, res, err)
	}
	p, err := doris.ParseShowCreateTable(fmt.Sprint(res[0][1]))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, c := range p.Columns {
		out[c.Name] = strings.ToLower(c.Type)
	}
	return out
}

// TestSchemaEvolutionAddsExactTypesFromBinlog: ADD COLUMN on a doris_binlog
// source adds the column to the target with the source's exact type, from
// the messages' doris_schema (a VARCHAR keeps its length, a DECIMAL its
// precision and scale, a DATETIME its precision, a LARGEINT stays one),
// not the Common mapping's STRING, and every value arrives.
func TestSchemaEvolutionAddsExactTypesFromBinlog(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, "shop", "orders", harness.TableOpts{})
	harness.CreateTable(t, srv, "shop_replica", "orders", harness.TableOpts{NoBinlog: true})
	w := harness.NewWorkload(srv, "shop", "orders", 33)
	if err := w.Insert(ctxTimeout(t, 30*time.Second), 10); err != nil {
		t.Fatal(err)
	}
	binlogToLoad(t, srv, []string{"shop.orders"}, routeByTable, "schema_evolution:\n  enabled: true")
	waitState(t, srv, "shop_replica", "orders", harness.TableState(t, srv, "shop", "orders", "id", cols...), 60*time.Second)

	added := []string{"note", "price", "at", "big"}
	harness.Exec(t, srv, "ALTER TABLE shop.orders ADD COLUMN `note` VARCHAR(20)",
		"ALTER TABLE shop.orders ADD COLUMN `price` DECIMAL(20, 4)",
		"ALTER TABLE shop.orders ADD COLUMN `at` DATETIME(3)",
		"ALTER TABLE shop.orders ADD COLUMN `big` LARGEINT",
		"INSERT INTO shop.orders (id, name, qty, amount, note, price, at, big) VALUES "+
			"(1001, 'new', 1, 1.00, 'twenty characters!!!', 1234567890123456.1234, '2026-01-02 03:04:05.123', 170141183460469231731687303715884105727)",
		"UPDATE shop.orders SET note = 'n', price = -0.0001, big = -5 WHERE id = 1")
	all := append(slices.Clone(cols), added...)
	waitColumn(t, srv, "shop_replica", "orders", "big", 60*time.Second)
	waitRows(t, srv, "shop_replica", "orders", harness.TableState(t, srv, "shop", "orders", "id", all...), 60*time.Second, all...)
	src, dst := columnTypes(t, srv, "shop", "orders"), columnTypes(t, srv, "shop_replica", "orders")
	for _, c := range added {
		if dst[c] != src[c] {
			t.Errorf("column %s is %s in the target, %s at the source", c, dst[c], src[c])
		}
	}
	if src["note"] != "varchar(20)" || src["price"] != "decimal(20,4)" {
		t.Fatalf("source types %v", src)
	}
}

// TestSchemaEvolutionLengthensVarchar: a target VARCHAR(10) column whose
// source column is VARCHAR(50) (the messages' doris_schema says so) is
// lengthened to VARCHAR(50) before the load, and 30-character values
// arrive whole.
func TestSchemaEvolutionLengthensVarchar(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.Exec(t, srv, "CREATE DATABASE shop", "CREATE DATABASE shop_replica",
		"CREATE TABLE shop.orders (`id` BIGINT NOT NULL, `name` VARCHAR(50)) UNIQUE KEY(`id`) DISTRIBUTED BY HASH(`id`) BUCKETS 1 "+
			`PROPERTIES ("replication_num" = "1", "binlog.enable" = "true", "binlog.format" = "ROW")`,
		"CREATE TABLE shop_replica.orders (`id` BIGINT NOT NULL, `name` VARCHAR(10) NOT NULL) UNIQUE KEY(`id`) DISTRIBUTED BY HASH(`id`) BUCKETS 1 "+
			`PROPERTIES ("replication_num" = "1")`,
		"INSERT INTO shop.orders VALUES (1, 'short'), (2, 'thirty characters long, whole!')")
	binlogToLoad(t, srv, []string{"shop.orders"}, routeByTable, "schema_evolution:\n  enabled: true")
	want := harness.TableState(t, srv, "shop", "orders", "id", "id", "name")
	waitRows(t, srv, "shop_replica", "orders", want, 30*time.Second, "id", "name")
	harness.Exec(t, srv, "INSERT INTO shop.orders VALUES (3, 'another value longer than ten')")
	want = harness.TableState(t, srv, "shop", "orders", "id", "id", "name")
	waitRows(t, srv, "shop_replica", "orders", want, 30*time.Second, "id", "name")
	if got := columnTypes(t, srv, "shop_replica", "orders")["name"]; got != "varchar(50)" {
		t.Fatalf("the target's name column is %s, want varchar(50)", got)
	}
}
