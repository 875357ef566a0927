package output

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/schema"
	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/doris/ddl"
)

// BenchmarkEncodeBatch measures split and encode of one doris_binlog-sized
// batch of change events (4064 rows, as batch_size's default).
func BenchmarkEncodeBatch(b *testing.B) {
	o := benchOutput(b, routeYAML)
	batch := make(service.MessageBatch, 4064)
	for i := range batch {
		batch[i] = change(fmt.Sprintf(`{"id":%d,"name":"name-%d","qty":%d,"amount":"12.50","ts":"2025-01-01 10:00:00"}`, i, i, i%100), "shop", "orders", opUpdateAfter, 470842795122229249+int64(i), int64(i))
	}
	benchEncode(b, o, batch, keysUnique)
}

// BenchmarkEncodeSnapshotBatch measures split, encode and label of one
// batch of doris_binlog snapshot rows of the bench's mixed table (4064
// rows, the input's default batch_size), with the metadata the input sets
// on them, into a DUPLICATE KEY table: the doris_load share of `make
// bench`'s row i, less the HTTP exchange.
func BenchmarkEncodeSnapshotBatch(b *testing.B) {
	o := benchOutput(b, "table_identifier: bench.mixed_copy\n")
	batch := make(service.MessageBatch, 4064)
	for i := range batch {
		batch[i] = snapshotRow(i)
	}
	benchEncode(b, o, batch, keysDuplicate)
}

// benchOutput is a doris_load from extra YAML lines whose FE never answers:
// the benchmarks only split and encode.
func benchOutput(b *testing.B, extra string) *dorisLoad {
	return outputFromYAML(b, "fenodes: 127.0.0.1:1\nusername: root\n"+extra)
}

// benchEncode measures split, encode and label of batch, each part taken as
// a table of the given key model, and reports the time per row.
func benchEncode(b *testing.B, o *dorisLoad, batch service.MessageBatch, model string) {
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		parts, err := splitBatch(o.conf, batch)
		if err != nil {
			b.Fatal(err)
		}
		for _, p := range parts {
			p.model = model
			if err := encodeBody(o.conf, batch, p); err != nil {
				b.Fatal(err)
			}
			o.assignLabel(p)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(batch)), "ns/row")
}

// snapshotRow is row i of the bench's mixed table as doris_binlog's
// snapshot emits it: its JSON, operation read, the source names and the
// schema metadata.
func snapshotRow(i int) *service.Message {
	m := service.NewMessage(fmt.Appendf(nil, `{"id":%d,"user_id":%d,"status":%d,"name":"customer-%06d","note":"order for \"%d\" — café v0","score":%d.125,"ratio":0.4873047,"amount":"%d.25","balance":"%d.0123456789","created":"2025-10-09 08:53:20.%06d","day":"2025-10-09","active":%t}`,
		i, i*7919%2_000_000_000, i%5, i%1_000_000, i, i%1000, i%10_000_000, i%1_000_000_000, i%1_000_000, i%2 == 0))
	m.MetaSetMut(metaOperation, opRead)
	m.MetaSetMut(metaDatabase, "bench")
	m.MetaSetMut(metaTable, "mixed")
	m.MetaSetImmut("schema", schemaMeta{})
	m.MetaSetImmut("key_columns", schemaMeta{})
	return m
}

// schemaMeta stands for the input's immutable schema metadata values.
type schemaMeta struct{}

func (schemaMeta) Copy() any { return schemaMeta{} }

// BenchmarkSchemaEvolutionCost measures what the schema check costs per
// row: one batch of change events carrying doris_binlog's schema metadata
// is split, checked, labelled and encoded by an output with
// schema_evolution disabled and by one with it enabled, alternately in the
// same loop so that both see the same machine. It reports ns/row for each
// and their ratio (issue 37 asks at most 1.05), and ns/row of the same
// batch without schema metadata, which skips the check.
func BenchmarkSchemaEvolutionCost(b *testing.B) {
	const target = "shop_replica.orders"
	off := benchOutput(b, routeYAML)
	on := benchOutput(b, routeYAML+"schema_evolution:\n  enabled: true\n  drop_columns: true\n")
	for _, o := range []*dorisLoad{off, on} {
		ts := &targetSchema{droppedAt: map[string]int64{}, verdicts: map[string]*verdict{}, keys: map[string]bool{"id": true}, nullable: map[string]bool{}, readAt: time.Now()}
		ts.cols = map[string]doris.ColumnDef{
			"id": {Name: "id", Type: "bigint"}, "name": {Name: "name", Type: "varchar(64)"}, "qty": {Name: "qty", Type: "int"},
			"amount": {Name: "amount", Type: "decimal(10,2)"}, "ts": {Name: "ts", Type: "datetime"},
		}
		o.targets.m[target] = ts
	}
	meta, desc := benchSchema(), benchDescription()
	withMeta := make(service.MessageBatch, 4064)
	bare := make(service.MessageBatch, len(withMeta))
	for i := range withMeta {
		body := fmt.Sprintf(`{"id":%d,"name":"name-%d","qty":%d,"amount":"12.50","ts":"2025-01-01 10:00:00"}`, i, i, i%100)
		withMeta[i] = change(body, "shop", "orders", opUpdateAfter, 470842795122229249+int64(i), int64(i))
		withMeta[i].MetaSetImmut(metaSchema, meta)
		withMeta[i].MetaSetImmut(metaDorisSchema, desc)
		bare[i] = change(body, "shop", "orders", opUpdateAfter, 470842795122229249+int64(i), int64(i))
	}
	ctx := context.Background()
	run := func(o *dorisLoad, batch service.MessageBatch) time.Duration {
		start := time.Now()
		parts, err := splitBatch(o.conf, batch)
		if err != nil {
			b.Fatal(err)
		}
		for _, p := range parts {
			p.model = keysUnique
		}
		if err := o.prepare(ctx, batch, parts); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	var tOff, tOn, tBare time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		// Each takes its turn first: the first run of a round finds the
		// caches in another state.
		for k := range 3 {
			switch (i + k) % 3 {
			case 0:
				tOff += run(off, withMeta)
			case 1:
				tOn += run(on, withMeta)
			default:
				tBare += run(off, bare)
			}
		}
	}
	rows := float64(b.N * len(withMeta))
	b.ReportMetric(float64(tOff.Nanoseconds())/rows, "ns/row-disabled")
	b.ReportMetric(float64(tOn.Nanoseconds())/rows, "ns/row-enabled")
	b.ReportMetric(float64(tBare.Nanoseconds())/rows, "ns/row-no-schema")
	b.ReportMetric(float64(tOn)/float64(tOff), "enabled/disabled")
}

// benchSchema is the schema metadata doris_binlog attaches to the rows of
// BenchmarkSchemaEvolutionCost.
func benchSchema() service.ImmutableValue {
	root := schema.Common{Name: "orders", Type: schema.Object, Children: []schema.Common{
		{Name: "id", Type: schema.Int64},
		{Name: "name", Type: schema.String, Optional: true},
		{Name: "qty", Type: schema.Int32, Optional: true},
		{Name: "amount", Type: schema.Decimal, Optional: true, Logical: &schema.LogicalParams{Decimal: &schema.DecimalParams{Precision: 10, Scale: 2}}},
		{Name: "ts", Type: schema.Timestamp, Optional: true, Logical: &schema.LogicalParams{Timestamp: &schema.TimestampParams{Unit: schema.TimeUnitSeconds}}},
	}}
	return service.ImmutableAny{V: root.ToAny()}
}

// benchDescription is the doris_schema metadata doris_binlog attaches
// beside benchSchema: with schema_evolution the scan reads it too.
func benchDescription() service.ImmutableValue {
	p := &doris.TableProperties{KeysType: "UNIQUE_KEYS", KeyColumns: []string{"id"}, Nullable: map[string]bool{"id": false}}
	return service.ImmutableAny{V: ddl.Describe(p, []doris.ColumnDef{
		{Name: "id", Type: "bigint"}, {Name: "name", Type: "varchar(64)"}, {Name: "qty", Type: "int"},
		{Name: "amount", Type: "decimal(10,2)"}, {Name: "ts", Type: "datetime"},
	})}
}

// BenchmarkSchemaScan measures the per-row part of the schema check alone,
// scanning a part's messages apart from splitBatch (which does it while it
// reads their other metadata, in cache): the same with schema_evolution
// enabled or not, to set against BenchmarkEncodeBatch's ns/row.
func BenchmarkSchemaScan(b *testing.B) {
	meta := benchSchema()
	batch := make(service.MessageBatch, 4064)
	p := &part{target: "shop_replica.orders", msgs: make([]int, len(batch))}
	for i := range batch {
		batch[i] = change(`{"id":1}`, "shop", "orders", opUpdateAfter, 470842795122229249+int64(i), int64(i))
		batch[i].MetaSetImmut(metaSchema, meta)
		p.msgs[i] = i
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		p.scan = nil
		if s, err := partSchemas(batch, p); err != nil || len(s) != 1 {
			b.Fatal(s, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(batch)), "ns/row")
}
