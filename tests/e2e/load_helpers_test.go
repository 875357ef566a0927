package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"

	_ "github.com/rpconnect-doris/rpconnect-doris/output"
)

// loadOutputYAML is a doris_load output on srv; extra lines are added as
// fields.
func loadOutputYAML(srv *dorissim.Server, extra ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "doris_load:\n  fenodes: %s\n  username: root\n  password: \"\"\n", srv.HTTPAddr())
	for _, e := range extra {
		harness.Indent(&b, e)
	}
	return b.String()
}

// loadStream is a running stream whose output is doris_load.
type loadStream struct {
	stream *service.Stream
	done   chan error
	send   service.MessageBatchHandlerFunc // set when built with a producer
}

func logLevel() string {
	if l := os.Getenv("HARNESS_LOG_LEVEL"); l != "" {
		return l
	}
	return "NONE"
}

// startLoadStream runs input (or, when input is "", a producer the test
// sends batches with) through processors into output.
func startLoadStream(t *testing.T, input, resources, output string, processors ...string) *loadStream {
	t.Helper()
	b := service.NewStreamBuilder()
	if err := b.SetLoggerYAML("level: " + logLevel()); err != nil {
		t.Fatal(err)
	}
	ls := &loadStream{done: make(chan error, 1)}
	b.SetThreads(1) // several pipeline threads would reorder batches
	if resources != "" {
		if err := b.AddResourcesYAML(resources); err != nil {
			t.Fatalf("resources: %v", err)
		}
	}
	if input == "" {
		send, err := b.AddBatchProducerFunc()
		if err != nil {
			t.Fatal(err)
		}
		ls.send = send
	} else if err := b.AddInputYAML(input); err != nil {
		t.Fatalf("input: %v", err)
	}
	for _, p := range processors {
		if err := b.AddProcessorYAML(p); err != nil {
			t.Fatalf("processor: %v", err)
		}
	}
	if err := b.AddOutputYAML(output); err != nil {
		t.Fatalf("output: %v", err)
	}
	s, err := b.Build()
	if err != nil {
		t.Fatalf("building stream: %v", err)
	}
	ls.stream = s
	go func() { ls.done <- s.Run(context.Background()) }()
	t.Cleanup(func() {
		if err := s.StopWithin(10 * time.Second); err != nil && !errors.Is(err, context.Canceled) {
			t.Logf("stopping stream: %v", err)
		}
		<-ls.done
	})
	return ls
}

// write sends one batch through the producer and waits for its ack.
func (ls *loadStream) write(t *testing.T, msgs ...*service.Message) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return ls.send(ctx, service.MessageBatch(msgs))
}

// changeMsg is a change event with doris_binlog's (new) metadata names.
func changeMsg(body, db, table, op string, tso, lsn int64) *service.Message {
	m := service.NewMessage([]byte(body))
	m.MetaSetMut("operation", op)
	m.MetaSetMut("database_schema", db)
	m.MetaSetMut("table", table)
	if tso > 0 {
		m.MetaSetMut("tso", tso)
		m.MetaSetMut("lsn", lsn)
	}
	return m
}

// waitState waits until db.table reads as want.
func waitState(t *testing.T, srv *dorissim.Server, db, table string, want map[string]harness.Row, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var diff string
	for time.Now().Before(deadline) {
		if diff = harness.Diff(want, harness.TableState(t, srv, db, table, "id", cols...)); diff == "" {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("%s.%s differs after %s:\n%s", db, table, timeout, diff)
}

func row(id, name, qty, amount string) harness.Row {
	return harness.Row{"id": id, "name": name, "qty": qty, "amount": amount}
}

func rows(rs ...harness.Row) map[string]harness.Row {
	out := map[string]harness.Row{}
	for _, r := range rs {
		out[r["id"]] = r
	}
	return out
}

func countRows(t *testing.T, srv *dorissim.Server, db, table string) int {
	t.Helper()
	res, err := srv.Query(ctxTimeout(t, 30*time.Second), fmt.Sprintf("SELECT COUNT(*) FROM %s.%s", harness.QuoteIdent(db), harness.QuoteIdent(table)))
	if err != nil || len(res) != 1 {
		t.Fatalf("count %s.%s: %v %v", db, table, res, err)
	}
	var n int
	fmt.Sscan(fmt.Sprint(res[0][0]), &n)
	return n
}
