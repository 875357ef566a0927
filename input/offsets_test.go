package input

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// offsetRecorder is an offset table that records each publish attempt.
type offsetRecorder struct {
	mu       sync.Mutex
	attempts []string
	fail     int           // the next fail attempts fail
	hold     chan struct{} // when set, the first attempt waits for it
	called   chan string
	closed   bool
}

func newOffsetRecorder() *offsetRecorder { return &offsetRecorder{called: make(chan string, 100)} }

func (r *offsetRecorder) Publish(_ context.Context, offset string) error {
	r.mu.Lock()
	r.attempts = append(r.attempts, offset)
	hold, failing := r.hold, r.fail > 0
	r.hold = nil
	if failing {
		r.fail--
	}
	r.mu.Unlock()
	r.called <- offset
	if hold != nil {
		<-hold
	}
	if failing {
		return errors.New("dial tcp 127.0.0.1:9030: connection refused")
	}
	return nil
}

func (r *offsetRecorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	return nil
}

func (r *offsetRecorder) seen() ([]string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.attempts), r.closed
}

func (r *offsetRecorder) waitCall(t *testing.T, want string) {
	t.Helper()
	select {
	case got := <-r.called:
		if got != want {
			t.Fatalf("published %q, want %q", got, want)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("%q was not published within 5s", want)
	}
}

func offsetConf() *Config {
	// A poll interval of an hour: within a test, only the first offer and
	// the one at close are published.
	return &Config{PollInterval: time.Hour, ConnectTimeout: time.Minute, ReadTimeout: time.Minute,
		ConsumerID: "c1", OffsetTable: "ops.offsets"}
}

// TestOffsetPublisherLatestWinsAndCloseFlushes: within a poll interval the
// newest offer replaces older ones, and close publishes the last one.
func TestOffsetPublisherLatestWinsAndCloseFlushes(t *testing.T) {
	rec := newOffsetRecorder()
	log, _ := captureLogger(t)
	p := startOffsetPublisher(offsetConf(), log, rec)
	p.offer("2026-01-01 00:00:01")
	rec.waitCall(t, "2026-01-01 00:00:01")
	p.offer("2026-01-01 00:00:02")
	p.offer("2026-01-01 00:00:03")
	p.close()
	p.close() // harmless again
	got, closed := rec.seen()
	if want := []string{"2026-01-01 00:00:01", "2026-01-01 00:00:03"}; !slices.Equal(got, want) {
		t.Fatalf("published %q, want %q", got, want)
	}
	if !closed {
		t.Fatal("the offset table connection was not closed")
	}
}

// TestOffsetPublisherNeverBlocksOffers: offers return while a publish
// hangs, and the last of them is the one published at close.
func TestOffsetPublisherNeverBlocksOffers(t *testing.T) {
	rec := newOffsetRecorder()
	release := make(chan struct{})
	rec.hold = release
	log, _ := captureLogger(t)
	p := startOffsetPublisher(offsetConf(), log, rec)
	p.offer("first")
	rec.waitCall(t, "first")
	offered := make(chan struct{})
	go func() {
		defer close(offered)
		for i := 0; i < 1000; i++ {
			p.offer(fmt.Sprintf("offset %d", i))
		}
	}()
	select {
	case <-offered:
	case <-time.After(5 * time.Second):
		t.Fatal("offers blocked behind a hanging publish")
	}
	close(release)
	p.close()
	if got, _ := rec.seen(); !slices.Equal(got, []string{"first", "offset 999"}) {
		t.Fatalf("published %q, want first and offset 999", got)
	}
}

// TestOffsetPublisherFailureRetriedLater: a failed publish is logged with
// the consumer and table and tried again at the next chance (here close);
// an offset already published is not written again.
func TestOffsetPublisherFailureRetriedLater(t *testing.T) {
	rec := newOffsetRecorder()
	rec.fail = 1
	log, sink := captureLogger(t)
	p := startOffsetPublisher(offsetConf(), log, rec)
	p.offer("a")
	rec.waitCall(t, "a")
	p.close()
	if got, _ := rec.seen(); !slices.Equal(got, []string{"a", "a"}) {
		t.Fatalf("attempts %q, want a failed and then a again at close", got)
	}
	warns := sink.Lines("WARN", "Failed to publish Doris source offset a")
	if len(warns) != 1 || !strings.Contains(warns[0], "c1") || !strings.Contains(warns[0], "ops.offsets") || !strings.Contains(warns[0], "connection refused") {
		t.Fatalf("warnings %q, want one naming the consumer, the table and the cause", warns)
	}

	rec = newOffsetRecorder()
	p = startOffsetPublisher(offsetConf(), log, rec)
	p.offer("b")
	rec.waitCall(t, "b")
	p.close()
	if got, _ := rec.seen(); !slices.Equal(got, []string{"b"}) {
		t.Fatalf("attempts %q, want b once", got)
	}
	rec = newOffsetRecorder()
	startOffsetPublisher(offsetConf(), log, rec).close()
	if got, closed := rec.seen(); len(got) != 0 || !closed {
		t.Fatalf("close without offers: attempts %q closed %v, want none and closed", got, closed)
	}
}
