package schemameta

import (
	"testing"

	"github.com/redpanda-data/benthos/v4/public/service"
)

// BenchmarkAttach measures attaching both values to a message that already
// has a metadata map: 0 allocs/op.
func BenchmarkAttach(b *testing.B) {
	m := mustNew(b, props(b, allTypesDDL), nil)
	msg := service.NewMessage(nil)
	m.Attach(msg)
	b.ReportAllocs()
	for b.Loop() {
		m.Attach(msg)
	}
}

// withAndWithoutSchema runs fn as two sub-benchmarks: a template of keys
// (each set to int64 0), with and without the schema values attached.
func withAndWithoutSchema(b *testing.B, keys []string, fn func(b *testing.B, tmpl *service.Message)) {
	for _, withSchema := range []bool{false, true} {
		name := "without_schema"
		if withSchema {
			name = "with_schema"
		}
		b.Run(name, func(b *testing.B) {
			m := mustNew(b, props(b, allTypesDDL), nil)
			tmpl := service.NewMessage(nil)
			for _, k := range keys {
				tmpl.MetaSetMut(k, int64(0))
			}
			if withSchema {
				m.Attach(tmpl)
			}
			b.ReportAllocs()
			fn(b, tmpl)
		})
	}
}

// BenchmarkTemplateCopy is the per-row path of a message built from a
// template that carries the schema: the schema adds nothing to a copy.
func BenchmarkTemplateCopy(b *testing.B) {
	withAndWithoutSchema(b, []string{"operation", "database_schema", "table"}, func(b *testing.B, tmpl *service.Message) {
		body := []byte(`{"id":1}`)
		for b.Loop() {
			msg := tmpl.Copy()
			msg.SetBytes(body)
		}
	})
}

// BenchmarkBinlogRowPath is the binlog per-row path of a small
// transaction: a copy of a template holding every binlog key, then the five
// positional keys written (input's rowConverter.binlogMessage), the first
// of which clones the template's metadata map. The two schema entries make
// that map two entries larger; this shows what that costs.
func BenchmarkBinlogRowPath(b *testing.B) {
	keys := []string{"operation", "database_schema", "table", "tso", "lsn", "commit_ts_ms", "source_ts_ms", "transaction_id"}
	withAndWithoutSchema(b, keys, func(b *testing.B, tmpl *service.Message) {
		body := []byte(`{"id":1}`)
		var tso, lsn, txID any = int64(1), int64(2), "1"
		for b.Loop() {
			msg := tmpl.Copy()
			msg.SetBytes(body)
			msg.MetaSetMut("tso", tso)
			msg.MetaSetMut("commit_ts_ms", tso)
			msg.MetaSetMut("source_ts_ms", tso)
			msg.MetaSetMut("transaction_id", txID)
			msg.MetaSetMut("lsn", lsn)
		}
	})
}
