package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"
)

// Event is one doris_binlog message as a consumer sees it. Phase and Op are
// derived: binlog messages are those with a tso, and Op is the Doris op code
// of the operation.
type Event struct {
	Operation     string         `json:"operation"`
	Phase         string         `json:"phase"`
	Database      string         `json:"database_schema"`
	Table         string         `json:"table"`
	TSO           int64          `json:"tso,omitempty"`
	LSN           int64          `json:"lsn,omitempty"`
	Op            int64          `json:"op,omitempty"`
	CommitTSMs    int64          `json:"commit_ts_ms,omitempty"`
	SourceTSMs    int64          `json:"source_ts_ms,omitempty"`
	TransactionID string         `json:"transaction_id,omitempty"`
	WindowStart   string         `json:"doris_window_start,omitempty"` // with debug_metadata only
	WindowEnd     string         `json:"doris_window_end,omitempty"`
	Row           map[string]any `json:"row"`
	Before        map[string]any `json:"before,omitempty"` // with binlog_merge_updates, on operation update
	Body          string         `json:"-"`                // the message body as delivered
	Meta          map[string]any `json:"-"`                // every metadata value (immutable ones copied)
}

// Pos is the event's binlog position, (TSO, LSN, OP).
func (e Event) Pos() [3]int64 { return [3]int64{e.TSO, e.LSN, e.Op} }

// opCodes maps an operation to its Doris @incr op code.
// A merged update (binlog_merge_updates) sits at its update_after's position.
var opCodes = map[string]int64{"insert": 0, "delete": 1, "update_before": 2, "update_after": 3, "update": 3}

// EventFromMessage reads an Event from a message's body and metadata,
// checking the metadata types that consumers rely on.
func EventFromMessage(m *service.Message) (Event, error) {
	b, err := m.AsBytes()
	if err != nil {
		return Event{}, err
	}
	ev := Event{}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&ev.Row); err != nil {
		return ev, fmt.Errorf("message body is not a JSON object: %w: %s", err, b)
	}
	ev.Body, ev.Meta = string(b), map[string]any{}
	_ = m.MetaWalkMut(func(k string, v any) error {
		ev.Meta[k] = v
		return nil
	})
	ev.Operation, _ = m.MetaGet("operation")
	ev.Database, _ = m.MetaGet("database_schema")
	ev.Table, _ = m.MetaGet("table")
	ev.Phase = "snapshot"
	if _, ok := m.MetaGetMut("tso"); !ok {
		return ev, nil
	}
	ev.Phase, ev.Op = "binlog", opCodes[ev.Operation]
	ev.WindowStart, _ = m.MetaGet("doris_window_start")
	ev.WindowEnd, _ = m.MetaGet("doris_window_end")
	for key, dst := range map[string]*int64{"tso": &ev.TSO, "lsn": &ev.LSN, "commit_ts_ms": &ev.CommitTSMs, "source_ts_ms": &ev.SourceTSMs} {
		v, ok := m.MetaGetMut(key)
		if !ok {
			return ev, fmt.Errorf("binlog message lacks metadata %s", key)
		}
		n, ok := v.(int64)
		if !ok {
			return ev, fmt.Errorf("metadata %s is %T, want int64", key, v)
		}
		*dst = n
	}
	if v, ok := m.MetaGetMut("before"); ok {
		if ev.Before, ok = v.(map[string]any); !ok {
			return ev, fmt.Errorf("metadata before is %T, want an object", v)
		}
	}
	txID, ok := m.MetaGetMut("transaction_id")
	if ev.TransactionID, _ = txID.(string); !ok || ev.TransactionID == "" {
		return ev, fmt.Errorf("metadata transaction_id is %T %v, want a string", txID, txID)
	}
	return ev, nil
}

// Collector gathers events from a stream's consumer function.
type Collector struct {
	mu     sync.Mutex
	events []Event
	errs   []error
	// Reject, when set, is asked per batch whether to nack it.
	Reject func(batchNo int, batch []Event) bool
	// Delay, when set, is how long each batch takes, like a slow output.
	Delay time.Duration
	// BlockFrom, when set, makes batches from that number on hang until
	// the stream stops, unacknowledged, like an output that died.
	BlockFrom int
	batchN    int
	batches   [][]Event
}

// Consume is a service.MessageBatchHandlerFunc.
func (c *Collector) Consume(ctx context.Context, batch service.MessageBatch) error {
	if c.Delay > 0 {
		time.Sleep(c.Delay)
	}
	evs := make([]Event, 0, len(batch))
	for _, m := range batch {
		ev, err := EventFromMessage(m)
		if err != nil {
			c.mu.Lock()
			c.errs = append(c.errs, err)
			c.mu.Unlock()
			return nil
		}
		evs = append(evs, ev)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.batchN++
	c.batches = append(c.batches, evs)
	if c.BlockFrom > 0 && c.batchN >= c.BlockFrom {
		c.mu.Unlock()
		<-ctx.Done()
		c.mu.Lock()
		return ctx.Err()
	}
	if c.Reject != nil && c.Reject(c.batchN, evs) {
		return fmt.Errorf("test output rejects batch %d", c.batchN)
	}
	c.events = append(c.events, evs...)
	return nil
}

// Batches returns every batch the output was handed, in order, including
// rejected and blocked ones.
func (c *Collector) Batches() [][]Event {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([][]Event(nil), c.batches...)
}

// Events returns a copy of what was delivered so far.
func (c *Collector) Events() []Event {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Event(nil), c.events...)
}

// Errors returns messages that could not be read as events.
func (c *Collector) Errors() []error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]error(nil), c.errs...)
}

// WaitFor polls until cond holds for the delivered events, or fails the test
// after timeout.
func (c *Collector) WaitFor(t testing.TB, timeout time.Duration, what string, cond func([]Event) bool) []Event {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		evs := c.Events()
		if cond(evs) {
			return evs
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s; %d events delivered, errors %v", timeout, what, len(evs), c.Errors())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// RejectEveryThirdOnce is a Collector.Reject that nacks every third batch
// the first time its content is seen, like an output with transient
// failures: the same rows succeed when they come again.
func RejectEveryThirdOnce() func(int, []Event) bool {
	rejected := map[string]bool{}
	return func(n int, evs []Event) bool {
		if n%3 != 0 || len(evs) == 0 {
			return false
		}
		id := fmt.Sprint(evs[0].Phase, evs[0].Pos(), evs[0].Row)
		if rejected[id] {
			return false
		}
		rejected[id] = true
		return true
	}
}

// OfTable returns the events of db.table, in delivery order.
func OfTable(events []Event, db, table string) []Event {
	var out []Event
	for _, ev := range events {
		if ev.Database == db && ev.Table == table {
			out = append(out, ev)
		}
	}
	return out
}
