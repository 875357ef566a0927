package output

import (
	"fmt"
	"testing"

	"github.com/redpanda-data/benthos/v4/public/service"
)

// BenchmarkEncodeBatch measures split and encode of one doris_binlog-sized
// batch of change events (4064 rows, as batch_size's default).
func BenchmarkEncodeBatch(b *testing.B) {
	pc, err := Spec().ParseYAML("fenodes: 127.0.0.1:1\nusername: root\ntable_identifier: '${! @database_schema }_replica.${! @table }'\n", nil)
	if err != nil {
		b.Fatal(err)
	}
	conf, err := parseConfig(pc)
	if err != nil {
		b.Fatal(err)
	}
	o, err := newDorisLoad(conf, nil)
	if err != nil {
		b.Fatal(err)
	}
	batch := make(service.MessageBatch, 4064)
	for i := range batch {
		batch[i] = change(fmt.Sprintf(`{"id":%d,"name":"name-%d","qty":%d,"amount":"12.50","ts":"2025-01-01 10:00:00"}`, i, i, i%100), "shop", "orders", opUpdateAfter, 470842795122229249+int64(i), int64(i))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		parts, err := o.split(batch)
		if err != nil {
			b.Fatal(err)
		}
		for _, p := range parts {
			p.model = keysUnique
			if err := o.encode(batch, p); err != nil {
				b.Fatal(err)
			}
			o.assignLabel(p)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(batch)), "ns/row")
}
