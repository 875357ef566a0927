package bench

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// latencyResult holds commit-to-output latencies of the events received.
type latencyResult struct {
	written int
	lat     []time.Duration
}

// percentile of sorted durations, nearest rank.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(p/100*float64(len(sorted))+0.999999) - 1
	return sorted[max(0, min(rank, len(sorted)-1))]
}

// latencyConfig runs the binary in latest mode and prints, per event, the
// commit time that the input put in commit_ts_ms.
func latencyConfig(s *sim, table string) string {
	return inputConfig(s, table, "scan_mode: latest", "binlog_poll_interval: 1s", "checkpoint_cache: cp") +
		"pipeline:\n  processors:\n    - mapping: 'root = \"%v\".format(@commit_ts_ms)'\n" +
		"output:\n  stdout:\n    codec: lines\n" + memoryCache + "http:\n  enabled: false\n" + quietTail
}

// measureLatency commits one small transaction every 50 ms for `steady` and
// timestamps each event as its line arrives on the binary's stdout.
func measureLatency(t *testing.T, ctx context.Context, s *sim, table string, steady time.Duration) latencyResult {
	t.Helper()
	var (
		mu   sync.Mutex
		res  latencyResult
		seen int
	)
	onLine := func(line string, at time.Time) {
		ms, err := strconv.ParseInt(strings.TrimSpace(line), 10, 64)
		if err != nil {
			return
		}
		mu.Lock()
		res.lat = append(res.lat, at.Sub(time.UnixMilli(ms)))
		seen++
		mu.Unlock()
	}
	writerDone := make(chan error, 1)
	go func() {
		// Give the input time to fix its stream start before the first commit.
		time.Sleep(5 * time.Second)
		end := time.Now().Add(steady)
		n := 0
		for id := int64(10_000_000); time.Now().Before(end); id++ {
			stmt := fmt.Sprintf("INSERT INTO %s.%s (id, user_id, name) VALUES (%d, %d, 'latency')", benchDB, table, id, id%1000)
			if err := s.exec(ctx, stmt); err != nil {
				writerDone <- err
				return
			}
			n++
			mu.Lock()
			res.written = n
			mu.Unlock()
			time.Sleep(50 * time.Millisecond)
		}
		writerDone <- nil
	}()
	var writerErr error
	writing := true
	var drainUntil time.Time
	stop := func() bool {
		if writing {
			select {
			case writerErr = <-writerDone:
				writing = false
				drainUntil = time.Now().Add(10 * time.Second)
			default:
				return false
			}
		}
		mu.Lock()
		defer mu.Unlock()
		return seen >= res.written || time.Now().After(drainUntil)
	}
	runRPConnect(t, ctx, latencyConfig(s, table), stop, onLine)
	if writerErr != nil {
		t.Fatalf("latency writer: %v", writerErr)
	}
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(res.lat)
	return res
}
