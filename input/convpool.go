package input

import (
	"runtime"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// convPool turns one window's Arrow batches into messages on several
// goroutines. A binlog window is a single Flight stream, so without this a
// backlog would convert on one core while a snapshot uses one per split.
// Results are consumed in submission order, so emission order and
// checkpoint positions are exactly those of a sequential read.
type convPool struct {
	jobs chan *convJob
	wg   sync.WaitGroup
}

// convJob is one retained record batch and the slot for its result.
type convJob struct {
	rec arrow.RecordBatch
	res chan convResult
}

type convResult struct {
	msgs []*service.Message
	pos  []checkpoint.Pos
	err  error
}

// convWorkers is how many goroutines convert one table's part of a window
// when tables tables are read at once; twice as many batches may wait,
// which bounds the memory a window holds. The cores are shared out between
// the tables, so that a window of many tables does not hold many batches
// per table ahead of the merge.
func convWorkers(tables int) int {
	return max(min(runtime.GOMAXPROCS(0), 4)/max(tables, 1), 1)
}

// newConvPool starts workers that convert the rows of one window after skip
// (the last row delivered before this read; nil for none).
func newConvPool(newRC func() *rowConverter, workers int, skip *checkpoint.Pos) *convPool {
	n := workers
	p := &convPool{jobs: make(chan *convJob, 2*n)}
	for range n {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			rc := newRC()
			for job := range p.jobs {
				res := convertBinlog(rc, job.rec, skip)
				job.rec.Release()
				job.res <- res
			}
		}()
	}
	return p
}

// submit queues rec, which stays retained until a worker converted it.
func (p *convPool) submit(rec arrow.RecordBatch) *convJob {
	rec.Retain()
	job := &convJob{rec: rec, res: make(chan convResult, 1)}
	p.jobs <- job
	return job
}

// close waits for the workers, which first finish (and release) every
// queued batch.
func (p *convPool) close() {
	close(p.jobs)
	p.wg.Wait()
}

func convertBinlog(rc *rowConverter, rec arrow.RecordBatch, skip *checkpoint.Pos) convResult {
	if err := rc.bind(rec); err != nil {
		return convResult{err: err}
	}
	n := int(rec.NumRows())
	res := convResult{msgs: make([]*service.Message, 0, n), pos: make([]checkpoint.Pos, 0, n)}
	for i := 0; i < n; i++ {
		pos, err := rc.binlogPos(i)
		if err != nil {
			return convResult{err: err}
		}
		if skip != nil && !skip.Less(pos) {
			continue // delivered before a restart or retry
		}
		msg, err := rc.binlogMessage(i, pos)
		if err != nil {
			return convResult{err: err}
		}
		res.msgs = append(res.msgs, msg)
		res.pos = append(res.pos, pos)
	}
	return res
}
