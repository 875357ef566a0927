package changes

import (
	"context"
	"runtime"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/redpanda-data/benthos/v4/public/service"
)

// Workers is how many goroutines convert a window's merged rows: the rows
// are converted after the merge has ordered them, so the cores serve
// whichever table's rows come next, however many tables the window reads.
func Workers() int {
	return max(min(runtime.GOMAXPROCS(0), 4), 1)
}

// chunkRowsFor is how many rows one conversion job holds: enough to make
// the job's overhead small, few enough that one emitted batch spreads over
// every worker.
func chunkRowsFor(maxRows, workers int) int {
	return min(max(maxRows/(2*workers), 256), 1024)
}

// segment is a run of consecutive rows [from, to) of one batch.
type segment struct {
	b        *Batch
	from, to int
}

// chunk is one conversion job: segments of one or more tables' batches,
// in merge order, converted by one worker.
type chunk struct {
	segs []segment
	rows int
	msgs []*service.Message
	err  error
	done chan struct{}
}

func newChunk() *chunk { return &chunk{done: make(chan struct{})} }

// add takes rows [from, to) of b; the chunk holds a reference to b until
// it is converted.
func (ch *chunk) add(b *Batch, from, to int) {
	b.retain()
	ch.segs = append(ch.segs, segment{b: b, from: from, to: to})
	ch.rows += to - from
}

// convert builds the messages of the chunk's rows, in order, and releases
// its batches. A cancelled merge converts nothing more.
func (ch *chunk) convert(ctx context.Context) {
	defer close(ch.done)
	defer ch.releaseAll()
	if err := context.Cause(ctx); err != nil {
		ch.err = err
		return
	}
	var bs binder
	defer bs.putAll()
	ch.msgs = make([]*service.Message, 0, ch.rows)
	for _, s := range ch.segs {
		rc, err := bs.bind(s.b)
		if err != nil {
			ch.err = err
			return
		}
		for i := s.from; i < s.to; i++ {
			msg, err := rc.binlogMessage(s.b.rows[i], s.b.Pos[i])
			if err != nil {
				ch.err = err
				return
			}
			ch.msgs = append(ch.msgs, msg)
		}
	}
}

func (ch *chunk) releaseAll() {
	for _, s := range ch.segs {
		s.b.release()
	}
}

// wait gives the chunk's messages once converted.
func (ch *chunk) wait(ctx context.Context) ([]*service.Message, error) {
	select {
	case <-ch.done:
		return ch.msgs, ch.err
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// binder holds the converters one chunk uses, each bound to the record it
// converts last: a chunk whose segments alternate between two tables binds
// each record once.
type binder []bound

type bound struct {
	cs  *Converters
	rc  *Converter
	rec arrow.RecordBatch
}

func (bs *binder) bind(b *Batch) (*Converter, error) {
	for i := range *bs {
		e := &(*bs)[i]
		if e.cs != b.conv {
			continue
		}
		if e.rec != b.rec {
			if err := e.rc.Bind(b.rec); err != nil {
				return nil, err
			}
			e.rec = b.rec
		}
		return e.rc, nil
	}
	rc := b.conv.get()
	if err := rc.Bind(b.rec); err != nil {
		b.conv.put(rc)
		return nil, err
	}
	*bs = append(*bs, bound{cs: b.conv, rc: rc, rec: b.rec})
	return rc, nil
}

func (bs binder) putAll() {
	for _, e := range bs {
		e.cs.put(e.rc)
	}
}

// converters runs the workers that convert a merge's chunks.
type converters struct {
	jobs chan *chunk
	wg   sync.WaitGroup
}

func startConverters(ctx context.Context, workers int) *converters {
	cv := &converters{jobs: make(chan *chunk, 4*workers)}
	for range workers {
		cv.wg.Add(1)
		go func() {
			defer cv.wg.Done()
			for ch := range cv.jobs {
				ch.convert(ctx)
			}
		}()
	}
	return cv
}

// submit queues ch; it blocks while the queue is full, which is the
// back-pressure that keeps a window's converted rows bounded.
func (cv *converters) submit(ctx context.Context, ch *chunk) error {
	select {
	case cv.jobs <- ch:
		return nil
	case <-ctx.Done():
		ch.releaseAll()
		close(ch.done)
		return context.Cause(ctx)
	}
}

// stop waits for the workers, which first finish every queued chunk.
func (cv *converters) stop() {
	close(cv.jobs)
	cv.wg.Wait()
}
