package delivery

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"
)

// saves records every saved position, in order.
type saves struct {
	mu   sync.Mutex
	got  []int
	fail error
}

func (s *saves) save(_ context.Context, st int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return s.fail
	}
	s.got = append(s.got, st)
	return nil
}

func (s *saves) list() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int(nil), s.got...)
}

func newTestDelivery(t *testing.T, limit int) (*Delivery[int], *saves) {
	t.Helper()
	sv := &saves{}
	d, err := New(Options[int]{Limit: limit, Save: sv.save, Equal: func(a, b int) bool { return a == b }})
	if err != nil {
		t.Fatal(err)
	}
	return d, sv
}

func batchOf(n int) service.MessageBatch {
	b := make(service.MessageBatch, n)
	for i := range b {
		b[i] = service.NewMessage([]byte("x"))
	}
	return b
}

type handed struct {
	batch service.MessageBatch
	ack   service.AckFunc
}

// collect reads n batches of r.
func collect(t *testing.T, r *Run[int], n int) []handed {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var out []handed
	for range n {
		b, ack, ok, err := r.Next(ctx)
		if err != nil || !ok {
			t.Fatalf("Next: ok=%v err=%v", ok, err)
		}
		out = append(out, handed{b, ack})
	}
	return out
}

func ctx5s(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// Acks arriving out of order commit only the highest contiguous position,
// and each ack has saved it before it returns.
func TestAckOutOfOrderCommitsContiguousPrefix(t *testing.T) {
	d, sv := newTestDelivery(t, 100)
	r := d.Start(false, func(ctx context.Context, r *Run[int]) error {
		for i := 1; i <= 3; i++ {
			if err := r.Emit(batchOf(2), i); err != nil {
				return err
			}
		}
		<-ctx.Done()
		return nil
	})
	defer r.Stop()
	got := collect(t, r, 3)
	ctx := ctx5s(t)
	if err := got[2].ack(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if s := sv.list(); len(s) != 0 {
		t.Fatalf("batch 3 acked alone must not commit, saved %v", s)
	}
	if err := got[0].ack(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if s := sv.list(); len(s) != 1 || s[0] != 1 {
		t.Fatalf("after batch 1: saved %v, want [1]", s)
	}
	if err := got[1].ack(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if s := sv.list(); len(s) != 2 || s[1] != 3 {
		t.Fatalf("after batch 2: saved %v, want [1 3]", s)
	}
	if st, ok := d.Committed(); !ok || st != 3 {
		t.Fatalf("committed %d %v", st, ok)
	}
	// A repeated ack is ignored.
	if err := got[1].ack(ctx, errors.New("late nack")); err != nil {
		t.Fatal(err)
	}
	if r.stale.Load() {
		t.Fatal("a second call of an ack must not rewind")
	}
}

// An empty emit commits once everything before it is acked, and never
// overtakes an unacked batch.
func TestEmptyEmitWaitsForEarlierBatches(t *testing.T) {
	d, sv := newTestDelivery(t, 100)
	emitted := make(chan struct{})
	r := d.Start(false, func(ctx context.Context, r *Run[int]) error {
		if err := r.Emit(batchOf(1), 1); err != nil {
			return err
		}
		if err := r.Emit(nil, 2); err != nil {
			return err
		}
		close(emitted)
		<-ctx.Done()
		return nil
	})
	defer r.Stop()
	got := collect(t, r, 1)
	select {
	case <-emitted:
	case <-time.After(5 * time.Second):
		t.Fatal("the empty Emit did not return within 5s")
	}
	if s := sv.list(); len(s) != 0 {
		t.Fatalf("saved %v before the batch was acked", s)
	}
	if err := got[0].ack(ctx5s(t), nil); err != nil {
		t.Fatal(err)
	}
	if s := sv.list(); len(s) != 1 || s[0] != 2 {
		t.Fatalf("saved %v, want [2]", s)
	}
}

// A nack stops the run with ErrRewind, nothing after the rejected batch is
// committed, and the next run sends its first batches one at a time.
func TestNackRewindsAndNextRunIsSerial(t *testing.T) {
	d, sv := newTestDelivery(t, 100)
	r := d.Start(false, func(ctx context.Context, r *Run[int]) error {
		for i := 1; ; i++ {
			if err := r.Emit(batchOf(1), i); err != nil {
				return err
			}
		}
	})
	got := collect(t, r, 3)
	ctx := ctx5s(t)
	if err := got[0].ack(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := got[1].ack(ctx, errors.New("output down")); err != nil {
		t.Fatal(err)
	}
	if err := got[2].ack(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for {
		_, _, ok, err := r.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
	}
	if !errors.Is(r.Err(), ErrRewind) {
		t.Fatalf("run ended with %v, want ErrRewind", r.Err())
	}
	if s := sv.list(); len(s) != 1 || s[0] != 1 {
		t.Fatalf("saved %v, want only [1]", s)
	}

	second := 0
	r2 := d.Start(true, func(ctx context.Context, r *Run[int]) error {
		for i := 10; ; i++ {
			if err := r.Emit(batchOf(1), i); err != nil {
				return err
			}
			second++
		}
	})
	defer r2.Stop()
	first := collect(t, r2, 1)
	time.Sleep(50 * time.Millisecond) // a parallel producer would hand out a second batch here
	ch := make(chan handed, 1)
	go func() {
		b, ack, ok, _ := r2.Next(ctx)
		if ok {
			ch <- handed{b, ack}
		}
	}()
	select {
	case <-ch:
		t.Fatal("a second batch was handed out while the first after a rewind is unacked")
	case <-time.After(100 * time.Millisecond):
	}
	if err := first[0].ack(ctx, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case h := <-ch:
		_ = h.ack(ctx, nil)
	case <-time.After(5 * time.Second):
		t.Fatal("the next batch never came after the ack")
	}
}

// The limit blocks emission until acks free room.
func TestLimitBlocksEmit(t *testing.T) {
	d, _ := newTestDelivery(t, 2)
	third := make(chan struct{})
	r := d.Start(false, func(ctx context.Context, r *Run[int]) error {
		if err := r.Emit(batchOf(2), 1); err != nil {
			return err
		}
		if err := r.Emit(batchOf(1), 2); err != nil {
			return err
		}
		close(third)
		<-ctx.Done()
		return nil
	})
	defer r.Stop()
	got := collect(t, r, 1)
	select {
	case <-third:
		t.Fatal("emit passed checkpoint_limit")
	case <-time.After(100 * time.Millisecond):
	}
	if err := got[0].ack(ctx5s(t), nil); err != nil {
		t.Fatal(err)
	}
	collect(t, r, 1)
	select {
	case <-third:
	case <-time.After(5 * time.Second):
		t.Fatal("emit stayed blocked after the ack")
	}
}

// WaitUnacked returns only when every handed-out ack has saved, and is
// bounded by its context.
func TestWaitUnackedWaitsForSaves(t *testing.T) {
	d, sv := newTestDelivery(t, 100)
	r := d.Start(false, func(ctx context.Context, r *Run[int]) error {
		if err := r.Emit(batchOf(1), 1); err != nil {
			return err
		}
		<-ctx.Done()
		return nil
	})
	got := collect(t, r, 1)
	short, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := r.WaitUnacked(short); err == nil {
		t.Fatal("WaitUnacked returned with a batch unacked")
	}
	r.Stop()
	go func() {
		time.Sleep(20 * time.Millisecond)
		_ = got[0].ack(context.Background(), nil)
	}()
	if err := r.WaitUnacked(ctx5s(t)); err != nil {
		t.Fatal(err)
	}
	if s := sv.list(); len(s) != 1 || s[0] != 1 {
		t.Fatalf("WaitUnacked returned before the save: %v", s)
	}
}

// A failed save fails the ack, and the position does not move.
func TestFailedSaveFailsAck(t *testing.T) {
	d, sv := newTestDelivery(t, 100)
	sv.fail = errors.New("cache down")
	r := d.Start(false, func(ctx context.Context, r *Run[int]) error {
		if err := r.Emit(batchOf(1), 1); err != nil {
			return err
		}
		<-ctx.Done()
		return nil
	})
	defer r.Stop()
	got := collect(t, r, 1)
	if err := got[0].ack(ctx5s(t), nil); err == nil {
		t.Fatal("ack succeeded although the save failed")
	}
	if _, ok := d.Committed(); ok {
		t.Fatal("position moved after a failed save")
	}
}

// A save failing in an ack with an error that Stop picks ends the run with
// that error, even when the producer returns nil on cancellation; the
// position stays where it was.
func TestStoppingSaveErrorEndsTheRun(t *testing.T) {
	sv := &saves{}
	stop := errors.New("value too long for the cache")
	d, err := New(Options[int]{Limit: 100, Save: sv.save, Equal: func(a, b int) bool { return a == b },
		Stop: func(err error) bool { return errors.Is(err, stop) }})
	if err != nil {
		t.Fatal(err)
	}
	r := d.Start(false, func(ctx context.Context, r *Run[int]) error {
		for i := 1; ; i++ {
			if err := r.Emit(batchOf(1), i); err != nil {
				return nil
			}
		}
	})
	defer r.Stop()
	got := collect(t, r, 2)
	if err := got[0].ack(ctx5s(t), nil); err != nil {
		t.Fatal(err)
	}
	sv.mu.Lock()
	sv.fail = stop
	sv.mu.Unlock()
	if err := got[1].ack(ctx5s(t), nil); !errors.Is(err, stop) {
		t.Fatalf("ack: %v, want the save error", err)
	}
	for {
		_, _, ok, err := r.Next(ctx5s(t))
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
	}
	if !errors.Is(r.Err(), stop) {
		t.Fatalf("run ended with %v, want the save error", r.Err())
	}
	if st, _ := d.Committed(); st != 1 {
		t.Fatalf("committed %d, want 1", st)
	}
}

// Acks of a rewound run never move the position.
func TestStaleRunAcksDoNotCommit(t *testing.T) {
	d, sv := newTestDelivery(t, 100)
	r := d.Start(false, func(ctx context.Context, r *Run[int]) error {
		for i := 1; i <= 2; i++ {
			if err := r.Emit(batchOf(1), i); err != nil {
				return err
			}
		}
		<-ctx.Done()
		return nil
	})
	got := collect(t, r, 2)
	ctx := ctx5s(t)
	_ = got[1].ack(ctx, errors.New("nack"))
	_ = got[0].ack(ctx, nil)
	r.Stop()
	if s := sv.list(); len(s) != 0 {
		t.Fatalf("a rewound run committed %v", s)
	}
}

func TestNewValidates(t *testing.T) {
	if _, err := New(Options[int]{Limit: 0}); err == nil {
		t.Fatal("limit 0 accepted")
	}
}

// Acks that race must never save an older position after a newer one: the
// checkpoint would go back, and a restart would deliver again what the
// output already had (the restart flake of issue 8).
func TestConcurrentAcksSaveInOrder(t *testing.T) {
	const n = 3000
	sv := &saves{}
	d, err := New(Options[int]{Limit: n, Equal: func(a, b int) bool { return a == b },
		Save: func(ctx context.Context, st int) error {
			time.Sleep(20 * time.Microsecond) // a cache write: other acks queue up meanwhile
			return sv.save(ctx, st)
		}})
	if err != nil {
		t.Fatal(err)
	}
	r := d.Start(false, func(ctx context.Context, r *Run[int]) error {
		for i := 1; i <= n; i++ {
			if err := r.Emit(batchOf(1), i); err != nil {
				return err
			}
		}
		<-ctx.Done()
		return nil
	})
	defer r.Stop()
	got := collect(t, r, n)
	ctx := ctx5s(t)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Neighbouring batches are acked by different goroutines at
			// about the same time, as a pipeline with max_in_flight does.
			for i := w; i < n; i += 8 {
				_ = got[i].ack(ctx, nil)
			}
		}()
	}
	wg.Wait()
	s := sv.list()
	for i := 1; i < len(s); i++ {
		if s[i] <= s[i-1] {
			t.Fatalf("saved %d after %d: the position went back", s[i], s[i-1])
		}
	}
	if st, _ := d.Committed(); st != n || s[len(s)-1] != n {
		t.Fatalf("committed %d, last saved %d, want %d", st, s[len(s)-1], n)
	}
}
