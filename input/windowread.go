package input

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/changes"
	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/input/flight"
	"github.com/rpconnect-doris/rpconnect-doris/input/rowjson"
	"github.com/rpconnect-doris/rpconnect-doris/input/schemameta"
	"github.com/rpconnect-doris/rpconnect-doris/input/windowplan"
)

// windowReader reads the binlog windows of a run: one source per table,
// merged in commit order and handed to the emitter. It outlives single
// windows only for the half-pair warnings' rate limit.
type windowReader struct {
	conf    *Config
	log     *service.Logger
	m       *metrics
	c       *conn
	clock   dorisClock
	em      *emitter
	maxRows int
	halves  *changes.HalfPairLog // binlog_merge_updates warnings, rate-limited
	sig     *signalSource        // takes the signal table's rows; nil without one
	// bufferLimit bounds what a window over more tables than sessions
	// holds (windowHeldLimit; smaller in tests).
	bufferLimit int64
}

func newWindowReader(co *coordinator) *windowReader {
	return &windowReader{conf: co.conf, log: co.log, m: co.m, c: co.c, clock: co.clock, em: co.em, maxRows: co.maxRows,
		halves: changes.NewHalfPairLog(co.log.Warnf), bufferLimit: windowHeldLimit}
}

// read reads window w of tables, one @incr query per table, and emits
// their rows merged in (TSO, table, LSN, OP) order, skipping those up to
// skip (delivered before a restart). Each batch's position is what place
// makes of its last row. A table found dropped is returned, its rows so
// far delivered; any other failure of one table retries that table's
// query, never the others and never skipping. Every attempt, of the shared
// chain or of a table's catch-up, is first checked against the table's
// binlog retention (guardExpiry); now is the Doris time w's end came from,
// or nil, when it is asked once here (and again by each table's retries).
// A window over no more tables than max_flight_sessions reads each on its
// own session as the merge takes its rows; over more, readHeld reads the
// tables in turn and merges what they hold.
func (wr *windowReader) read(ctx context.Context, tables []*tableInfo, w windowplan.Window, now *windowplan.Bound, skip *checkpoint.Pos, catchUp bool,
	place func(*checkpoint.State, checkpoint.Pos)) (dropped []string, err error) {
	if now == nil {
		if ts, err := wr.clock.currentBound(ctx); err == nil {
			now = &ts
		}
	}
	if len(tables) > wr.c.maxSessions() {
		return wr.readHeld(ctx, tables, w, now, skip, catchUp, place)
	}
	return wr.readStreaming(ctx, tables, w, now, skip, catchUp, place)
}

// readStreaming reads every table of w at once, each on its own Flight
// session, and merges their rows as they come.
func (wr *windowReader) readStreaming(ctx context.Context, tables []*tableInfo, w windowplan.Window, now *windowplan.Bound, skip *checkpoint.Pos, catchUp bool,
	place func(*checkpoint.State, checkpoint.Pos)) (dropped []string, err error) {
	wr.log.Debugf("Reading binlog window [%s, %s) of %d table(s)", w.Start, w.End, len(tables))
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	srcs := make([]*windowSource, len(tables))
	for i, t := range tables {
		srcs[i] = wr.newSource(rctx, t, w, now, skip, catchUp)
		go srcs[i].run(rctx)
	}
	defer func() {
		cancel()
		for _, s := range srcs {
			s.drain()
		}
	}()
	if err := wr.merge(ctx, srcs, w, place); err != nil {
		return nil, err
	}
	return droppedOf(srcs), nil
}

// merge emits the sources' rows of w in one order, with
// include_transaction_markers each transaction between its markers
// (txnMarks), the positions then at whole transactions only.
func (wr *windowReader) merge(ctx context.Context, srcs []*windowSource, w windowplan.Window, place func(*checkpoint.State, checkpoint.Pos)) error {
	var marks *txnMarks
	if wr.conf.TransactionMarkers && len(srcs) > 0 {
		marks = newTxnMarks(srcs[0].catchUp)
	}
	emit := func(msgs []*service.Message, pos []checkpoint.Pos, counts map[string]*changes.OpCounts) error {
		last := &pos[len(pos)-1]
		data, sigs := wr.sig.take(msgs)
		if marks != nil {
			data, last = marks.wrap(data, wr.sig.dataPositions(msgs, pos, len(data)))
		}
		placed := placeAt(place, last)
		if err := wr.em.emit(ctx, data, func(st *checkpoint.State) {
			placed(st)
			wr.sig.note(st, sigs)
		}); err != nil {
			return err
		}
		for key, ops := range counts {
			if wr.sig != nil && key == wr.sig.t.name.key {
				continue // signals, not rows delivered
			}
			for op, n := range ops {
				if n > 0 {
					wr.m.rows.Incr(n, key, checkpoint.PhaseBinlog, changes.CountName(op))
				}
			}
		}
		return nil
	}
	opt := changes.MergeOptions{MaxRows: wr.maxRows, Pairer: wr.newPairer(w)}
	if err := changes.Merge(ctx, srcs, opt, emit); err != nil {
		return err
	}
	if marks == nil {
		return nil
	}
	// The window holds the whole of its last transaction: its commit
	// goes out now, not with the next window's first rows.
	if msg, last, ok := marks.finish(); ok {
		return wr.em.emit(ctx, []*service.Message{msg}, placeAt(place, &last))
	}
	return nil
}

// placeAt is the change a batch makes of the emitted position: place at
// last, or none when last is nil (a batch inside one transaction).
func placeAt(place func(*checkpoint.State, checkpoint.Pos), last *checkpoint.Pos) func(*checkpoint.State) {
	if last == nil {
		return func(*checkpoint.State) {}
	}
	at := *last
	return func(st *checkpoint.State) { place(st, at) }
}

// droppedOf names the sources' tables found dropped.
func droppedOf(srcs []*windowSource) (dropped []string) {
	for _, s := range srcs {
		if s.dropped {
			dropped = append(dropped, s.t.name.key)
		}
	}
	return dropped
}

// windowSource is one table's part of a window: its @incr rows, converted
// in order, retried from the last row handed on after a failure.
type windowSource struct {
	wr    *windowReader
	t     *tableInfo
	w     windowplan.Window
	now   *windowplan.Bound // the Doris time w's end came from, for the first attempt
	skip  *checkpoint.Pos   // the last row handed on (or delivered before)
	convs *changes.Converters
	// catchUp: a table's own read before it joins the chain, whose rows
	// say so (doris_phase).
	catchUp bool

	out     chan *changes.Batch // closed at the end; err then set
	done    chan struct{}
	err     error
	dropped bool

	// held, when the window reads more tables than there are sessions
	// (readHeld): the table's part is read whole into held, counted
	// against the window's buffer, before the merge starts.
	buf     *windowBuffer
	held    []*changes.Batch
	hasRows bool // a probe (buf.probe) found a row and stopped
}

// newSource reads t's part of w; ctx is the window read's, on which its
// converters resolve schemas.
func (wr *windowReader) newSource(ctx context.Context, t *tableInfo, w windowplan.Window, now *windowplan.Bound, skip *checkpoint.Pos, catchUp bool) *windowSource {
	skip = afterSnapshot(wr.em, t.name.key, skip)
	s := &windowSource{wr: wr, t: t, w: w, now: now, skip: skip, catchUp: catchUp, out: make(chan *changes.Batch), done: make(chan struct{})}
	s.convs = changes.NewConverters(func() *changes.Converter { return s.newConverter(ctx) })
	return s
}

// newConverter converts the table's @incr rows: the source reads positions
// with one, and the merge's workers convert with others.
func (s *windowSource) newConverter(ctx context.Context) *changes.Converter {
	name := s.t.name
	opts := rowjson.Options{Binlog: true, DatetimePrecision: s.t.datetimePrecision()}
	resolve := func(rs *arrow.Schema) (*schemameta.Meta, error) { return s.t.schemaFor(ctx, s.fields(), rs) }
	rc := changes.NewConverter(changes.Table{DB: name.db, Name: name.table, Key: name.key}, opts, resolve)
	rc.CatchUp = s.catchUp
	if s.wr.conf.DebugMetadata {
		rc.DebugWindow = &changes.Window{Start: s.w.Start.String(), End: s.w.End.String()}
	}
	return rc
}

// fields are the columns read of the table: read_field, but every column
// of the signal table.
func (s *windowSource) fields() []string {
	if s.t.signal {
		return nil
	}
	return s.wr.conf.ReadFields
}

// drain waits for the source to end and releases the batches the merge
// did not take.
func (s *windowSource) drain() {
	for b := range s.out {
		b.Release()
	}
	<-s.done
	for _, b := range s.held {
		b.Release()
	}
	s.held = nil
}

// Next gives the merge the table's next batch.
func (s *windowSource) Next(ctx context.Context) (*changes.Batch, bool, error) {
	if s.buf != nil {
		return s.nextHeld()
	}
	select {
	case b, open := <-s.out:
		if !open {
			<-s.done
			return nil, false, s.err
		}
		return b, true, nil
	case <-ctx.Done():
		return nil, false, context.Cause(ctx)
	}
}

// run reads the table's part until it is complete, the table turns out
// dropped, or a failure no retry can fix. The part is read as a queue of
// consecutive pieces: a piece too large for the query limits is replaced by
// its two halves, so order and exactly-once hold as for one query.
func (s *windowSource) run(ctx context.Context) {
	defer close(s.done)
	defer close(s.out)
	rt := newWindowRetry(s.wr.conf, s.wr.log, s.wr.m.windowRetries, s.t.name.key, s.w)
	defer s.wr.m.windowRetries.Done(rt)
	pieces := []windowplan.Window{s.w}
	now := s.now
	gapAccepted := false // binlog_on_expired: continue already applied
	for len(pieces) > 0 {
		err := s.attempt(ctx, pieces[0], now, &gapAccepted)
		now = nil // a retry asks Doris for its time again
		if err == nil {
			pieces = pieces[1:]
			continue
		}
		if ctx.Err() != nil {
			s.err = context.Cause(ctx)
			return
		}
		if errors.Is(err, errHasRows) {
			s.hasRows = true
			return
		}
		if isFatal(err) {
			s.err = err
			return
		}
		if s.gone(ctx) {
			s.dropped = true
			return
		}
		step, ferr := rt.Classify(err, pieces[0])
		if ferr != nil {
			s.err = ferr
			return
		}
		if step.Split {
			halves, _ := windowplan.Split(pieces[0])
			pieces = append(halves[:], pieces[1:]...)
		}
		if err := doris.Sleep(ctx, step.Wait); err != nil {
			s.err = err
			return
		}
	}
	rt.Recovered()
}

// attempt checks piece against the binlog retention and reads it once.
func (s *windowSource) attempt(ctx context.Context, piece windowplan.Window, now *windowplan.Bound, gapAccepted *bool) error {
	if err := s.checkRetention(ctx, piece, now, gapAccepted); err != nil {
		return err
	}
	return s.read(ctx, piece)
}

// checkRetention runs the expiry guard until it accepts a gap
// (binlog_on_expired: continue); from then on the source's attempts read
// on without counting or logging that gap again.
func (s *windowSource) checkRetention(ctx context.Context, piece windowplan.Window, now *windowplan.Bound, gapAccepted *bool) error {
	if *gapAccepted {
		return nil
	}
	accepted, err := s.wr.guardExpiry(ctx, s.t, piece, now, s.skip)
	if err != nil {
		return err
	}
	*gapAccepted = accepted
	return nil
}

// gone tells whether a failure came from the table having been dropped:
// only when the FE answers that the table is not there. A check that
// cannot tell leaves the table in; the failure is then retried as any other.
func (s *windowSource) gone(ctx context.Context) bool {
	exists, err := doris.TableExists(ctx, s.wr.c.rest, s.t.name.db, s.t.name.table)
	if err != nil {
		s.wr.log.Debugf("Reading %s failed and whether it still exists is unknown, so it is kept: %v", s.t.name.key, err)
		return false
	}
	return !exists
}

// read runs the query once and hands on the rows of every batch after
// the last row handed on. The merge converts them once it has ordered
// them; handing a batch over waits for the merge to take it, which keeps
// a table that waits for the others to the batch the merge holds and the
// one decoded next. That wait is the output's time, not the query's: it
// stops the request_query_timeout clock.
func (s *windowSource) read(ctx context.Context, piece windowplan.Window) error {
	name := s.t.name
	filter := s.wr.conf.BinlogFilter
	if s.t.signal {
		filter = "" // the data's condition, not the signals'
	}
	sql := doris.IncrSQLWhere(name.db, name.table, s.fields(), piece.Start.String(), piece.End.String(), s.wr.conf.IncrementType,
		doris.BinlogCondition(s.wr.conf.IgnoreUpdateBefore, filter))
	err := s.wr.c.onSession(ctx, s.wr.conf.QueryTimeout, func(qctx context.Context, fc *flight.Client) error {
		err := fc.Query(qctx, sql, func(rec arrow.RecordBatch) error {
			return holdQuery(qctx, func() error {
				b, err := s.convs.Batch(rec, s.skip)
				if err != nil {
					return err
				}
				return s.send(ctx, b)
			})
		})
		if err != nil && ctx.Err() == nil {
			err = s.timedOut(qctx, err)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("binlog window [%s, %s) of %s: %w", piece.Start, piece.End, name.key, err)
	}
	return nil
}

// send hands b to the merge, or holds it until the merge starts; a retry
// then reads on after its last row.
func (s *windowSource) send(ctx context.Context, b *changes.Batch) error {
	if b.Len() == 0 {
		return nil
	}
	if s.buf != nil {
		return s.hold(b)
	}
	select {
	case s.out <- b:
		last := b.Pos[b.Len()-1]
		s.skip = &last
		return nil
	case <-ctx.Done():
		b.Release()
		return ctx.Err()
	}
}

// newWindowRetry starts the retry rule (package windowplan) for window w
// of table, with the limits of conf.
func newWindowRetry(conf *Config, log *service.Logger, ages *windowplan.Ages, table string, w windowplan.Window) *windowplan.Retry {
	limits := windowplan.RetryConfig{
		QueryTimeout: conf.QueryTimeout, ExecMemLimit: conf.ExecMemLimit, Retries: conf.Retries,
		VisibleWaitTimeout: conf.VisibleWaitTimeout, CheckpointKey: conf.CheckpointKey, CheckpointCache: conf.CheckpointCache,
	}
	return windowplan.NewRetry(limits, log, ages, table, w)
}

// timedOut tells a query that ran out of time apart by whose time it was.
// request_query_timeout counts only the time spent waiting on Doris, so
// its running out means the part is too slow to read. Doris's own
// query_timeout counts every second the query is open, including those
// the reader spent handing rows on to a slow output; when the reader held
// the query at least as long as it waited on Doris, the output is what
// was slow, and the part is not taken for too large.
func (s *windowSource) timedOut(qctx context.Context, err error) error {
	if queryTimeRanOut(qctx) {
		return &windowplan.QueryTimeoutError{Timeout: s.wr.conf.QueryTimeout, Err: err}
	}
	if flight.ClassifyLimit(err) == flight.Timeout {
		if waited, held := queryTimes(qctx); held >= waited {
			return &windowplan.OutputHeldError{Waited: waited, Held: held, Err: err}
		}
	}
	return err
}

// newPairer gives the update merger of window w, nil without
// binlog_merge_updates. Half pairs are counted each and warned about at a
// bounded rate (changes.HalfPairLog).
func (wr *windowReader) newPairer(w windowplan.Window) *changes.Pairer {
	if !wr.conf.MergeUpdates {
		return nil
	}
	win := changes.Window{Start: w.Start.String(), End: w.End.String()}
	return changes.NewPairer(func(pos checkpoint.Pos, reason string) {
		wr.m.unpairedUpdates.Incr(1, pos.Table)
		wr.halves.Note(pos.Table, win, pos, reason)
	})
}
