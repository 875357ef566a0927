package kafka

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// franz-go can end a transaction with an abort and still report the
// commit as done (seen under load with a restarted writer; see
// confirmCommitted). The broker's side of that is injected here: the first
// commit request of the restarted writer reaches the broker as an abort,
// which the broker acknowledges. The write must notice and write the batch
// again, in place: every change lands once, none is acknowledged unwritten.
func TestExactlyOnceConfirmsTheCommit(t *testing.T) {
	c := startCluster(t, kfake.SeedTopics(3, "orders"))
	first := newOutput(t, c, eoYAML)
	write(t, first, changeRange(0, 10)...)
	_ = first.Close(context.Background())

	o, logs := newLoggedOutput(t, c, eoYAML)
	var turned atomic.Int32
	c.ControlKey(int16(kmsg.EndTxn), func(r kmsg.Request) (kmsg.Response, error, bool) {
		if req := r.(*kmsg.EndTxnRequest); req.Commit && turned.Add(1) == 1 {
			req.Commit = false
		}
		return nil, nil, false // the broker handles the request, as changed
	})
	write(t, o, changeRange(5, 20)...)
	if turned.Load() == 0 {
		t.Fatal("no commit request reached the broker")
	}
	retried := logs.Lines("WARN", "trying again")
	if len(retried) == 0 || !strings.Contains(retried[0], "ended with an abort marker") {
		t.Errorf("the aborted commit was not logged as such: %q", retried)
	}
	checkOnce(t, c, 20)
}
