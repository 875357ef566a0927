package input

import (
	"context"
	"errors"
	"testing"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// recordingSink keeps what the emitter hands to delivery.
type recordingSink struct {
	batches []service.MessageBatch
	states  []*checkpoint.State
	err     error
}

func (s *recordingSink) Emit(batch service.MessageBatch, st *checkpoint.State) error {
	if s.err != nil {
		return s.err
	}
	s.batches = append(s.batches, batch)
	s.states = append(s.states, st)
	return nil
}

// Each batch goes out under the position its own change makes of
// everything emitted before, as an unshared copy: a later change never
// reaches a position already registered.
func TestEmitterChangeTravelsWithItsBatch(t *testing.T) {
	ctx := context.Background()
	sink := &recordingSink{}
	start := checkpoint.New()
	start.StartChain(ckb("2026-12-01 10:00:00"))
	em := &emitter{run: sink, progress: start}
	rows := service.MessageBatch{service.NewMessage([]byte(`{"id":1}`))}
	if err := em.emit(ctx, nil, func(st *checkpoint.State) { st.AddTable("db.a", false, checkpoint.Bound{}, 4) }); err != nil {
		t.Fatal(err)
	}
	last := checkpoint.Pos{TSO: 11, Table: "db.a", LSN: 2}
	if err := em.emit(ctx, rows, func(st *checkpoint.State) {
		st.ChainProgress(ckb("2026-12-01 10:00:00"), ckb("2026-12-01 10:00:05"), last)
	}); err != nil {
		t.Fatal(err)
	}
	if err := em.emit(ctx, nil, func(st *checkpoint.State) { st.AdvanceChain(ckb("2026-12-01 10:00:05")) }); err != nil {
		t.Fatal(err)
	}
	if len(sink.states) != 3 {
		t.Fatalf("registered %d batches, want 3", len(sink.states))
	}
	if len(sink.batches[0]) != 0 || len(sink.batches[1]) != 1 || len(sink.batches[2]) != 0 {
		t.Fatalf("batch sizes %d, %d, %d; want 0, 1, 0", len(sink.batches[0]), len(sink.batches[1]), len(sink.batches[2]))
	}
	if got := sink.states[0]; got.Tables["db.a"] == nil || !got.Stream.End.IsZero() {
		t.Fatalf("first position %+v, want db.a added and no window yet", got)
	}
	if got := sink.states[1].Stream; got.End != ckb("2026-12-01 10:00:05") || got.Last == nil || *got.Last != last {
		t.Fatalf("the rows' position is %+v, want their window and last row", got)
	}
	if got := sink.states[2].Stream; got.Start != ckb("2026-12-01 10:00:05") || got.Last != nil {
		t.Fatalf("the position after the window is %+v, want the next window's start", got)
	}
	if sink.states[0].Tables["db.a"] == sink.states[1].Tables["db.a"] || sink.states[1].Stream == sink.states[2].Stream {
		t.Fatalf("registered positions share state with each other")
	}
	var seen *checkpoint.State
	em.view(func(st *checkpoint.State) { seen = st.Clone() })
	if !checkpoint.Equal(seen, sink.states[2]) {
		t.Fatalf("view shows %+v, want the last emitted position %+v", seen, sink.states[2])
	}
}

// A refused batch is reported to the caller.
func TestEmitterReportsARefusedBatch(t *testing.T) {
	refused := errors.New("run stopped")
	em := &emitter{run: &recordingSink{err: refused}, progress: checkpoint.New()}
	if err := em.emit(context.Background(), nil, func(*checkpoint.State) {}); !errors.Is(err, refused) {
		t.Fatalf("emit = %v, want the sink's error", err)
	}
}
