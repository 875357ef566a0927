package changes

import (
	"runtime"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// Pool turns one window's Arrow batches into messages on several
// goroutines. A binlog window is a single Flight stream, so without this a
// backlog would convert on one core while a snapshot uses one per split.
// Results are consumed in submission order, so emission order and
// checkpoint positions are exactly those of a sequential read.
type Pool struct {
	jobs chan *Job
	wg   sync.WaitGroup
}

// Job is one retained record batch and the slot for its result.
type Job struct {
	rec arrow.RecordBatch
	res chan Result
}

// Result is one converted batch: its messages and their positions, in row
// order, or the failure that stopped its conversion.
type Result struct {
	Msgs []*service.Message
	Pos  []checkpoint.Pos
	Err  error
}

// Workers is how many goroutines convert one table's part of a window
// when tables tables are read at once; twice as many batches may wait,
// which bounds the memory a window holds. The cores are shared out between
// the tables, so that a window of many tables does not hold many batches
// per table ahead of the merge.
func Workers(tables int) int {
	return max(min(runtime.GOMAXPROCS(0), 4)/max(tables, 1), 1)
}

// NewPool starts workers that convert the rows of one window after skip
// (the last row delivered before this read; nil for none).
func NewPool(newConverter func() *Converter, workers int, skip *checkpoint.Pos) *Pool {
	n := workers
	p := &Pool{jobs: make(chan *Job, 2*n)}
	for range n {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			rc := newConverter()
			for job := range p.jobs {
				res := convertBinlog(rc, job.rec, skip)
				job.rec.Release()
				job.res <- res
			}
		}()
	}
	return p
}

// Submit queues rec, which stays retained until a worker converted it.
// It blocks while Depth batches wait.
func (p *Pool) Submit(rec arrow.RecordBatch) *Job {
	rec.Retain()
	job := &Job{rec: rec, res: make(chan Result, 1)}
	p.jobs <- job
	return job
}

// Depth is how many submitted batches may wait for a worker.
func (p *Pool) Depth() int { return cap(p.jobs) }

// Wait gives the job's result once a worker has converted its batch.
func (j *Job) Wait() Result { return <-j.res }

// Close waits for the workers, which first finish (and release) every
// queued batch.
func (p *Pool) Close() {
	close(p.jobs)
	p.wg.Wait()
}

func convertBinlog(rc *Converter, rec arrow.RecordBatch, skip *checkpoint.Pos) Result {
	if err := rc.Bind(rec); err != nil {
		return Result{Err: err}
	}
	n := int(rec.NumRows())
	res := Result{Msgs: make([]*service.Message, 0, n), Pos: make([]checkpoint.Pos, 0, n)}
	for i := 0; i < n; i++ {
		pos, err := rc.binlogPos(i)
		if err != nil {
			return Result{Err: err}
		}
		if skip != nil && !skip.Less(pos) {
			continue // delivered before a restart or retry
		}
		msg, err := rc.binlogMessage(i, pos)
		if err != nil {
			return Result{Err: err}
		}
		res.Msgs = append(res.Msgs, msg)
		res.Pos = append(res.Pos, pos)
	}
	return res
}
