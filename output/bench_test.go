package output

import (
	"fmt"
	"testing"

	"github.com/redpanda-data/benthos/v4/public/service"
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
