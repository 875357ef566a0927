package kafka

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/input/txmarkers"
)

// topicPartition names one partition.
type topicPartition struct {
	topic     string
	partition int32
}

func (tp topicPartition) String() string { return fmt.Sprintf("%s/%d", tp.topic, tp.partition) }

// tail is how far this writer got in a partition: the position of its last
// committed record that has one; pos nil means the partition holds no such
// record of this writer.
type tail struct {
	pos *checkpoint.Pos
	// null: that record is a tombstone (a null value), which comes after
	// the delete whose position it shares.
	null bool
	// mark: that record is a transaction marker; pos holds only its TSO.
	mark txmarkers.Kind
	// offset is the record's offset (-1 with pos nil), for the log.
	offset int64
}

// before reports whether a record at pos, with a null value or not, comes
// after the tail. A delete and its tombstone share a position: the
// tombstone is the later of the two.
func (t tail) before(pos checkpoint.Pos, mark txmarkers.Kind, null bool) bool {
	if t.pos == nil {
		return true
	}
	c := comparePlaces(*t.pos, t.mark, pos, mark)
	return c < 0 || c == 0 && !t.null && null
}

// firstTailWindow is how many offsets before a partition's end the tail
// search reads first; each further window, before the last, is four times
// larger, while no record of this writer with a position is found.
const firstTailWindow = 256

// readTails finds this writer's tail in each partition, below the end
// offset waitStable settled for it; on an error, it returns those found so
// far.
func readTails(ctx context.Context, c *config, cl *kgo.Client, tps []topicPartition, ends map[topicPartition]int64) (map[topicPartition]tail, error) {
	out := make(map[topicPartition]tail, len(tps))
	for _, tp := range tps {
		end, ok := ends[tp]
		if !ok {
			return out, fmt.Errorf("partition %s: no settled end offset", tp)
		}
		start, err := startOffset(ctx, c, cl, tp)
		if err != nil {
			return out, err
		}
		t, err := readTail(ctx, c, tp, start, end)
		if err != nil {
			return out, err
		}
		out[tp] = t
	}
	return out, nil
}

// startOffset is the partition's first offset.
func startOffset(ctx context.Context, c *config, cl *kgo.Client, tp topicPartition) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	l, err := kadm.NewClient(cl).ListStartOffsets(ctx, tp.topic)
	if err == nil {
		err = l.Error()
	}
	if err != nil {
		return 0, fmt.Errorf("start offsets of %s: %w", tp.topic, err)
	}
	o, ok := l.Lookup(tp.topic, tp.partition)
	if !ok {
		return 0, fmt.Errorf("start offsets of %s: no offset answered", tp)
	}
	return o.Offset, nil
}

// readTail finds the tail that this writer's last committed record below
// end leaves (ownTail), reading backwards in windows that grow fourfold,
// down to start or max_tail_scan_records offsets before end. Other
// writers' records are skipped.
func readTail(ctx context.Context, c *config, tp topicPartition, start, end int64) (tail, error) {
	floor := max(start, end-c.tailScan)
	to := end
	for window := int64(firstTailWindow); to > start; window *= 4 {
		if to <= floor {
			return tail{}, doris.Permanent(fmt.Errorf("partition %s: no record of transactional_id %q among its last %d offsets (%d to %d), all other writers'; "+
				"raise %s to search further back", tp, c.txnID, c.tailScan, floor, end, fieldMaxTailScan))
		}
		from := max(floor, to-window)
		rec, err := lastOwnRecord(ctx, c, tp, from, to)
		if err != nil {
			return tail{}, err
		}
		if rec != nil {
			t, err := ownTail(rec, fmt.Sprintf("partition %s: record at offset %d, written under transactional_id %q,", tp, rec.Offset, c.txnID))
			if err != nil {
				// This writer's own record: its headers are wrong, and
				// guessing where the partition stands could drop or
				// repeat changes.
				return tail{}, doris.Permanent(err)
			}
			t.offset = rec.Offset
			return t, nil
		}
		to = from
	}
	return tail{offset: -1}, nil
}

func headerMap(r *kgo.Record) map[string]string {
	m := make(map[string]string, len(r.Headers))
	for _, h := range r.Headers {
		m[h.Key] = string(h.Value)
	}
	return m
}

// ownRecord reports whether r is a data record of this writer.
func ownRecord(r *kgo.Record, txnID string) bool {
	if r.Attrs.IsControl() {
		return false
	}
	for _, h := range r.Headers {
		if h.Key == headerWriter {
			return string(h.Value) == txnID
		}
	}
	return false
}

// ownTail is the tail that this writer's record rec leaves: its own
// position, or, for a record without one that orders it (a snapshot or
// catch-up row), the tail it was written after (headerTail).
func ownTail(rec *kgo.Record, where string) (tail, error) {
	h := headerMap(rec)
	if _, has := h[metaTSO]; has && h[metaPhase] != phaseCatchUp {
		pos, mark, err := headerPosition(h, where)
		return tail{pos: pos, null: rec.Value == nil, mark: mark}, err
	}
	v, ok := h[headerTail]
	if !ok {
		return tail{}, fmt.Errorf("%s has neither a position nor the header %s", where, headerTail)
	}
	return parseTail(v, where)
}

// lastOwnRecord reads [from, to) with read_committed and returns the last
// record of this writer, nil when there is none. Control
// records are kept so that reading knows when it passed to-1: every offset
// below the last stable offset is a data record, a transaction marker, an
// aborted record or one compacted away, and a record at to-1 or after
// (the end is read first, below a settled last stable offset) always comes.
func lastOwnRecord(ctx context.Context, c *config, tp topicPartition, from, to int64) (*kgo.Record, error) {
	opts := append(c.connOpts(),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{tp.topic: {tp.partition: kgo.NewOffset().At(from)}}),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.KeepControlRecords(),
	)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("reader of %s: %w", tp, err)
	}
	defer cl.Close()
	var last *kgo.Record
	for {
		// timeout bounds each fetch, not the window: a large window read
		// slowly but steadily gets through.
		pctx, cancel := context.WithTimeout(ctx, c.timeout)
		fs := cl.PollFetches(pctx)
		perr := pctx.Err()
		cancel()
		if perr != nil {
			return nil, fmt.Errorf("reading the records of %s (offsets %d to %d): nothing came within timeout %s: %w", tp, from, to, c.timeout, perr)
		}
		var ferr error
		fs.EachError(func(_ string, _ int32, err error) { ferr = err })
		if ferr != nil {
			return nil, fmt.Errorf("reading the records of %s (offsets %d to %d): %w", tp, from, to, ferr)
		}
		done := false
		fs.EachRecord(func(r *kgo.Record) {
			if done || r.Offset >= to {
				done = true
				return
			}
			if ownRecord(r, c.txnID) {
				last = r
			}
			done = r.Offset == to-1
		})
		if done {
			return last, nil
		}
	}
}
