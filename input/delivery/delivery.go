package delivery

import (
	"context"
	"fmt"
	"sync"
)

// Options configure a Delivery.
type Options[S any] struct {
	// Limit is how many messages may be delivered but unacknowledged;
	// emitting blocks at the limit (checkpoint_limit).
	Limit int
	// Save persists a position. It is called with positions in emission
	// order, never concurrently, and only for a position that differs
	// from the last one saved.
	Save func(ctx context.Context, st S) error
	// Equal tells whether two positions are the same, so that a commit
	// that would change nothing saves nothing.
	Equal func(a, b S) bool
	// OnCommit, when set, is told of every position that was saved.
	OnCommit func(st S)
	// Stop, when set, tells which Save errors end the run: one failing
	// in an ack stops the producer with that error, as one failing in
	// Emit does. Other Save errors fail only that ack, and a later ack
	// saves the position again.
	Stop func(err error) bool
}

// Delivery is the committed position of an input and the runs that move it.
// Acks of an old run never move the position after a newer run started.
type Delivery[S any] struct {
	opts Options[S]

	mu        sync.Mutex
	committed S
	has       bool
}

// New returns a Delivery with no committed position.
func New[S any](opts Options[S]) (*Delivery[S], error) {
	if opts.Limit < 1 || opts.Save == nil || opts.Equal == nil {
		return nil, fmt.Errorf("delivery: limit %d, save and equal are required", opts.Limit)
	}
	return &Delivery[S]{opts: opts}, nil
}

// Committed returns the last committed position, if any.
func (d *Delivery[S]) Committed() (S, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.committed, d.has
}

// Restore makes st the committed position without saving it: it was read
// from where Save writes.
func (d *Delivery[S]) Restore(st S) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.committed, d.has = st, true
}

// Commit saves st at once, outside any run: a resolved start must be
// durable before the first row is read.
func (d *Delivery[S]) Commit(ctx context.Context, st S) error {
	return d.commitResolved(ctx, func() *S { return &st }, func() bool { return false })
}

// Resave saves the committed position again, for a Save that adds to it
// what must be durable before rows go out (the chosen window ends). It
// does nothing before the first commit.
func (d *Delivery[S]) Resave(ctx context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.has {
		return nil
	}
	return d.opts.Save(ctx, d.committed)
}

// commitResolved asks the tracker for the highest position that may now
// be committed and saves it, unless it equals the committed one or stale
// says that its run was rewound. Asking and saving happen under one lock:
// two acks that resolved in one order must not save in the other, or the
// older position would overwrite the newer one and a restart would deliver
// again what the output already had.
func (d *Delivery[S]) commitResolved(ctx context.Context, resolve func() *S, stale func() bool) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	st := resolve()
	if st == nil || stale() || (d.has && d.opts.Equal(d.committed, *st)) {
		return nil
	}
	if err := d.opts.Save(ctx, *st); err != nil {
		return err
	}
	d.committed, d.has = *st, true
	if d.opts.OnCommit != nil {
		d.opts.OnCommit(*st)
	}
	return nil
}
