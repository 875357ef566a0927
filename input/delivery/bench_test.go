package delivery

import (
	"context"
	"testing"
)

// BenchmarkEmitAck emits batches and acks them in delivery order, keeping
// up to four in flight: the per-batch cost of the tracker, the ack and the
// commit (with a save that does nothing).
func BenchmarkEmitAck(b *testing.B) {
	const inFlight, rows = 4, 4064
	d, err := New(Options[int]{Limit: inFlight * rows, Save: func(context.Context, int) error { return nil }, Equal: func(a, b int) bool { return a == b }})
	if err != nil {
		b.Fatal(err)
	}
	batch := batchOf(rows)
	n := b.N
	r := d.Start(false, func(ctx context.Context, r *Run[int]) error {
		for i := range n {
			if err := r.Emit(batch, i+1); err != nil {
				return err
			}
		}
		return nil
	})
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for {
		_, ack, ok, err := r.Next(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if !ok {
			break
		}
		if err := ack(ctx, nil); err != nil {
			b.Fatal(err)
		}
	}
	if st, _ := d.Committed(); st != n {
		b.Fatalf("committed %d of %d", st, n)
	}
}
