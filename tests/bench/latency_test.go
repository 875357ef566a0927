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
	tick := func(ctx context.Context, id int64) (int, error) {
		stmt := fmt.Sprintf("INSERT INTO %s.%s (id, user_id, name) VALUES (%d, %d, 'latency')", benchDB, table, id, id%1000)
		return 1, s.exec(ctx, stmt)
	}
	return measureLatencyOf(t, ctx, latencyConfig(s, table), steady, 50*time.Millisecond, tick, nil, nil)
}

// measureLatencyOf runs the binary on cfg, which prints one commit time
// per event, while write commits a tick's changes every `every` for
// `steady` (id grows by one per tick; write returns the rows it
// committed), and measures each event's commit-to-output latency.
// sample, when set, is called at each of runRPConnect's polls. The first
// commit waits 5 s, for the input to fix its stream start, and, when ready
// is set, until ready answers true (it bounds its own wait by failing).
func measureLatencyOf(t *testing.T, ctx context.Context, cfg string, steady, every time.Duration,
	write func(ctx context.Context, id int64) (int, error), sample func(), ready func() (bool, error)) latencyResult {
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
		time.Sleep(5 * time.Second)
		for ready != nil {
			ok, err := ready()
			if err != nil {
				writerDone <- err
				return
			}
			if ok {
				break
			}
			time.Sleep(500 * time.Millisecond)
		}
		end := time.Now().Add(steady)
		for id := int64(10_000_000); time.Now().Before(end); id++ {
			n, err := write(ctx, id)
			if err != nil {
				writerDone <- err
				return
			}
			mu.Lock()
			res.written += n
			mu.Unlock()
			time.Sleep(every)
		}
		writerDone <- nil
	}()
	var writerErr error
	writing := true
	var drainUntil time.Time
	stop := func() bool {
		if sample != nil {
			sample()
		}
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
	runRPConnect(t, ctx, cfg, stop, onLine)
	if writerErr != nil {
		t.Fatalf("latency writer: %v", writerErr)
	}
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(res.lat)
	return res
}
