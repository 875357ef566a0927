package schemameta

import (
	"reflect"
	"strings"
	"testing"

	"github.com/redpanda-data/benthos/v4/public/bloblang"
	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

const ordersDDL = "CREATE TABLE `orders` (\n" +
	"  `order_id` bigint NOT NULL,\n" +
	"  `status` varchar(16) NULL,\n" +
	"  `amount` decimal(10, 2) NULL\n" +
	") ENGINE=OLAP\nUNIQUE KEY(`order_id`)\nDISTRIBUTED BY HASH(`order_id`) BUCKETS 8"

func props(t testing.TB, ddl string) *doris.TableProperties {
	t.Helper()
	p, err := doris.ParseShowCreateTable(ddl)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func mustNew(t testing.TB, p *doris.TableProperties, selected []string) *Meta {
	t.Helper()
	m, err := New("shop", "orders", p, selected)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// attached is a copy of the value Attach sets under key on a fresh message.
func attached(t testing.TB, m *Meta, key string) any {
	t.Helper()
	msg := service.NewMessage(nil)
	m.Attach(msg)
	v, ok := msg.MetaGetMut(key)
	if !ok {
		t.Fatalf("Attach did not set %s", key)
	}
	return v
}

func TestKeyColumnsByModel(t *testing.T) {
	m := mustNew(t, props(t, ordersDDL), nil)
	if got := m.KeyColumns(); !reflect.DeepEqual(got, []string{"order_id"}) {
		t.Errorf("UNIQUE key_columns = %v", got)
	}
	if got := attached(t, m, KeyKeyColumns); !reflect.DeepEqual(got, []any{"order_id"}) {
		t.Errorf("UNIQUE key_columns value = %#v", got)
	}
	dup := mustNew(t, props(t, "CREATE TABLE `orders` (`ts` datetime NULL, `v` int NULL) ENGINE=OLAP DUPLICATE KEY(`ts`) DISTRIBUTED BY RANDOM BUCKETS 1"), nil)
	if got := attached(t, dup, KeyKeyColumns); !reflect.DeepEqual(got, []any{}) {
		t.Errorf("DUP key_columns value = %#v, want an empty list (sort keys are not row identity)", got)
	}
}

func TestSelectedColumnsInBodyOrder(t *testing.T) {
	m := mustNew(t, props(t, ordersDDL), []string{"AMOUNT", "order_id"})
	var names []string
	for _, c := range m.Common().Children {
		names = append(names, c.Name)
	}
	if !reflect.DeepEqual(names, []string{"amount", "order_id"}) {
		t.Fatalf("children = %v", names)
	}
	if _, err := New("shop", "orders", props(t, ordersDDL), []string{"nope"}); err == nil || !strings.Contains(err.Error(), `shop.orders: selected column "nope"`) {
		t.Fatalf("unknown selected column: %v", err)
	}
	if _, err := New("shop", "orders", nil, nil); err == nil {
		t.Fatal("nil properties accepted")
	}
}

// A light ADD COLUMN (or DROP COLUMN) gives the table a new schema whose
// fingerprint differs, so downstream schema caches notice.
func TestFingerprintFollowsSchemaChanges(t *testing.T) {
	base := mustNew(t, props(t, ordersDDL), nil)
	same := mustNew(t, props(t, ordersDDL), nil)
	if base.Fingerprint() == "" || base.Fingerprint() != same.Fingerprint() {
		t.Fatalf("fingerprints of one schema: %q %q", base.Fingerprint(), same.Fingerprint())
	}
	added := strings.Replace(ordersDDL, "  `amount` decimal(10, 2) NULL\n", "  `amount` decimal(10, 2) NULL,\n  `w` int NULL DEFAULT \"7\"\n", 1)
	notNull := strings.Replace(ordersDDL, "`status` varchar(16) NULL", "`status` varchar(16) NOT NULL", 1)
	for name, ddl := range map[string]string{"added column": added, "nullability": notNull} {
		if fp := mustNew(t, props(t, ddl), nil).Fingerprint(); fp == base.Fingerprint() {
			t.Errorf("%s: fingerprint unchanged", name)
		}
	}
	if fp := mustNew(t, props(t, ordersDDL), []string{"status", "order_id", "amount"}).Fingerprint(); fp == base.Fingerprint() {
		t.Error("column order: fingerprint unchanged")
	}
	if got := attached(t, base, KeySchema).(map[string]any)["fingerprint"]; got != base.Fingerprint() {
		t.Errorf("value fingerprint %v, Fingerprint() %s", got, base.Fingerprint())
	}
}

// What users rely on: a Bloblang mapping reads @schema and @key_columns.
func TestBloblangReadsAttachedMetadata(t *testing.T) {
	m := mustNew(t, props(t, ordersDDL), nil)
	msg := service.NewMessage([]byte(`{"order_id":1,"status":"paid","amount":"12.30"}`))
	m.Attach(msg)
	exe, err := bloblang.Parse(`root.names = @schema.children.map_each(c -> c.name)
root.amount = @schema.children.index(2)
root.keys = @key_columns
root.optional = @schema.children.map_each(c -> c.optional.or(false))`)
	if err != nil {
		t.Fatal(err)
	}
	out, err := msg.BloblangQuery(exe)
	if err != nil {
		t.Fatal(err)
	}
	b, err := out.AsBytes()
	if err != nil {
		t.Fatal(err)
	}
	for _, frag := range []string{
		`"names":["order_id","status","amount"]`,
		`"keys":["order_id"]`,
		`"optional":[false,true,true]`,
		`"precision":10`, `"scale":2`, `"type":"DECIMAL"`,
	} {
		if !strings.Contains(string(b), frag) {
			t.Errorf("mapping output lacks %s: %s", frag, b)
		}
	}
	// A mapping that mutates its copy leaves the shared value untouched.
	mut, err := bloblang.Parse(`meta schema = @schema.merge({"name": "changed"})`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := msg.BloblangQuery(mut); err != nil {
		t.Fatal(err)
	}
	fresh := service.NewMessage(nil)
	m.Attach(fresh)
	shared, _ := fresh.MetaGetImmut(KeySchema)
	if name := shared.(service.ImmutableAny).V.(map[string]any)["name"]; name != "orders" {
		t.Fatalf("shared schema value changed: name = %v", name)
	}
}

// Attaching to a message costs no allocation once its metadata map holds
// the keys, as on the coordinator's per-table message templates.
func TestAttachAllocatesNothing(t *testing.T) {
	m := mustNew(t, props(t, ordersDDL), nil)
	msg := service.NewMessage(nil)
	msg.MetaSetMut("operation", "read")
	m.Attach(msg)
	if n := testing.AllocsPerRun(1000, func() { m.Attach(msg) }); n != 0 {
		t.Fatalf("Attach allocates %v times per message", n)
	}
}

// doris_schema carries what the Common schema loses (exact types, the key
// model, comments) for the selected columns in body order, as one value
// shared by every message of the schema.
func TestDorisSchemaAttached(t *testing.T) {
	m := mustNew(t, props(t, ordersDDL), []string{"amount", "order_id"})
	want := map[string]any{
		"keys_type": "UNIQUE_KEYS", "key_columns": []any{"order_id"}, "comment": "",
		"columns": []any{
			map[string]any{"name": "amount", "type": "decimal(10,2)", "nullable": true, "comment": ""},
			map[string]any{"name": "order_id", "type": "bigint", "nullable": false, "comment": ""},
		},
	}
	got := attached(t, m, KeyDorisSchema)
	if fp, _ := got.(map[string]any)["fingerprint"].(string); len(fp) != 24 {
		t.Fatalf("doris_schema fingerprint %q", fp)
	}
	delete(got.(map[string]any), "fingerprint")
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("doris_schema = %#v", got)
	}
	a, b := service.NewMessage(nil), service.NewMessage(nil)
	m.Attach(a)
	m.Attach(b)
	va, _ := a.MetaGetImmut(KeyDorisSchema)
	vb, _ := b.MetaGetImmut(KeyDorisSchema)
	if reflect.ValueOf(va.(service.ImmutableAny).V).Pointer() != reflect.ValueOf(vb.(service.ImmutableAny).V).Pointer() {
		t.Fatal("doris_schema is not one shared value")
	}
}
