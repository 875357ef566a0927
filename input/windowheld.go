package input

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/rpconnect-doris/rpconnect-doris/input/changes"
	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/input/windowplan"
)

// A k-way merge needs the head of every table's rows at once. A window
// over more tables than max_flight_sessions cannot keep a query open per
// table, so it reads the tables in turn, at most max_flight_sessions at a
// time, each table's part whole, and holds the rows as the Arrow record
// batches they came in (changes.Batch: positions and Arrow columns, not
// messages) until every table is read; then it merges them as a streaming
// window's. Idle tables, the common case of a large database, hold
// nothing, and the window costs one short query each.
//
// What is held is bounded by windowHeldLimit bytes of Arrow buffers (plus
// at most one record batch per session, read as the limit is passed). A
// window that holds more is read again as two consecutive halves, split
// down to one second, as a window too large for Doris's limits is (windowplan.Split):
// rows of the first half all come before those of the second, so the one
// order holds, and nothing of a window that overflowed was emitted. A
// one-second window over the limit cannot be split: it is probed for the
// tables that have changes in it, and those are read at once, each on its
// own session, when there are no more of them than max_flight_sessions.
// Else the input stops with an error naming max_flight_sessions.

// windowHeldLimit bounds the Arrow data a window over more tables than
// sessions holds before its merge.
const windowHeldLimit = 256 << 20

var (
	// errWindowFull ends the reads of a window whose held rows passed the
	// limit: it is read again in halves.
	errWindowFull = errors.New("the binlog window holds more changes than the input buffers")
	// errHasRows ends a probe's read of a table at its first row.
	errHasRows = errors.New("the table has changes in the window")
)

// windowBuffer counts what a window's tables hold.
type windowBuffer struct {
	limit int64
	used  atomic.Int64
	full  func() // ends the window's reads, with errWindowFull
	probe bool   // a row ends its table's read (errHasRows); nothing is held
}

// maxSessions is the most Flight sessions the run opens at once.
func (c *conn) maxSessions() int {
	return c.sessions().limit()
}

// readHeld reads window w of more tables than sessions: see above.
func (wr *windowReader) readHeld(ctx context.Context, tables []*tableInfo, w windowplan.Window, now *windowplan.Bound, skip *checkpoint.Pos, catchUp bool,
	place func(*checkpoint.State, checkpoint.Pos)) (dropped []string, err error) {
	pieces := []windowplan.Window{w}
	for len(pieces) > 0 {
		p := pieces[0]
		wr.log.Debugf("Reading binlog window [%s, %s) of %d table(s), %d at a time (max_flight_sessions), each whole before the merge",
			p.Start, p.End, len(tables), wr.c.maxSessions())
		srcs, err := wr.fill(ctx, tables, p, now, skip, catchUp, false)
		var gone []string
		switch {
		case errors.Is(err, errWindowFull):
			if halves, ok := windowplan.Split(p); ok {
				wr.log.Infof("Binlog window [%s, %s) of %d tables holds more than %d MiB of changes, more than the input holds while it reads more tables than max_flight_sessions (%d): reading it as two halves",
					p.Start, p.End, len(tables), wr.bufferLimit>>20, wr.c.maxSessions())
				pieces = append(halves[:], pieces[1:]...)
				continue
			}
			if gone, err = wr.readBusy(ctx, tables, p, now, skip, catchUp, place); err != nil {
				return nil, err
			}
		case err != nil:
			return nil, err
		default:
			err = wr.merge(ctx, srcs, p, place)
			for _, s := range srcs {
				s.drain()
			}
			if err != nil {
				return nil, err
			}
			gone = droppedOf(srcs)
		}
		dropped = append(dropped, gone...)
		tables = slices.DeleteFunc(slices.Clone(tables), func(t *tableInfo) bool { return slices.Contains(gone, t.name.key) })
		pieces = pieces[1:]
	}
	return dropped, nil
}

// readBusy reads a one-second window that holds more than the limit: only
// the tables with changes in it matter to the merge, and when there are no
// more of them than sessions, each streams on its own.
func (wr *windowReader) readBusy(ctx context.Context, tables []*tableInfo, w windowplan.Window, now *windowplan.Bound, skip *checkpoint.Pos, catchUp bool,
	place func(*checkpoint.State, checkpoint.Pos)) (dropped []string, err error) {
	srcs, err := wr.fill(ctx, tables, w, now, skip, catchUp, true)
	if err != nil {
		return nil, err
	}
	var busy []*tableInfo
	for _, s := range srcs {
		if s.hasRows {
			busy = append(busy, s.t)
		}
		s.drain()
	}
	dropped = droppedOf(srcs)
	if len(busy) > wr.c.maxSessions() {
		return nil, fmt.Errorf("binlog window [%s, %s): %d of its %d tables have changes in this one second, together more than the %d MiB the input holds, "+
			"and more than max_flight_sessions (%d) to read them at once: raise %s to %d (within what max_user_connections leaves), or split the tables over several instances",
			w.Start, w.End, len(busy), len(tables), wr.bufferLimit>>20, wr.c.maxSessions(), fieldMaxFlightSessions, len(busy))
	}
	wr.log.Infof("Binlog window [%s, %s) of %d tables holds more than %d MiB of changes in one second: its %d table(s) with changes are read at once, each on its own session",
		w.Start, w.End, len(tables), wr.bufferLimit>>20, len(busy))
	more, err := wr.readStreaming(ctx, busy, w, now, skip, catchUp, place)
	return append(dropped, more...), err
}

// fill reads every table's part of w whole, at most max_flight_sessions at
// a time. The first failure, or passing the limit, ends every read and is
// returned with nothing held; a table found dropped is no failure.
func (wr *windowReader) fill(ctx context.Context, tables []*tableInfo, w windowplan.Window, now *windowplan.Bound, skip *checkpoint.Pos, catchUp, probe bool) ([]*windowSource, error) {
	fctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	buf := &windowBuffer{limit: wr.bufferLimit, probe: probe, full: func() { cancel(errWindowFull) }}
	srcs := make([]*windowSource, len(tables))
	queue := make(chan *windowSource, len(tables))
	for i, t := range tables {
		// The converters resolve schemas on ctx: they convert in the
		// merge, after the reads' context has ended.
		srcs[i] = wr.newSource(ctx, t, w, now, skip, catchUp)
		srcs[i].buf = buf
		queue <- srcs[i]
	}
	close(queue)
	var wg sync.WaitGroup
	for range min(wr.c.maxSessions(), len(srcs)) {
		wg.Go(func() {
			for s := range queue {
				s.run(fctx)
				if s.err != nil {
					cancel(s.err)
				}
			}
		})
	}
	wg.Wait()
	if err := context.Cause(fctx); err != nil {
		for _, s := range srcs {
			s.drain()
		}
		return nil, err
	}
	return srcs, nil
}

// hold keeps b until the merge starts, within the window's limit.
func (s *windowSource) hold(b *changes.Batch) error {
	if s.buf.probe {
		b.Release()
		return errHasRows
	}
	if s.buf.used.Add(b.Bytes()) > s.buf.limit {
		b.Release()
		s.buf.full()
		return errWindowFull
	}
	s.held = append(s.held, b)
	last := b.Pos[b.Len()-1]
	s.skip = &last
	return nil
}

// nextHeld hands the merge the batches the table holds, in order.
func (s *windowSource) nextHeld() (*changes.Batch, bool, error) {
	if len(s.held) == 0 {
		return nil, false, s.err
	}
	b := s.held[0]
	s.held = s.held[1:]
	return b, true, nil
}
