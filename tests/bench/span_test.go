package bench

import (
	"context"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
)

// spanStart is what the client and dorissim had spent when a measured span
// began: rows k and m measure the cost of a steady state as the difference
// of two such readings, not from the process start.
type spanStart struct {
	at          time.Time
	cpu, simCPU time.Duration
	reqs        dorissim.Stats
}

// startSpan reads, now, the CPU of the client (process pid) and of dorissim
// and dorissim's request counters.
func startSpan(t *testing.T, ctx context.Context, s *sim, pid int) (spanStart, error) {
	st := spanStart{at: time.Now(), simCPU: s.cpu(t)}
	var err error
	if st.cpu, err = procCPU(pid); err != nil {
		return st, err
	}
	st.reqs, err = s.requestStats(ctx)
	return st, err
}

// spanCost is what the client and dorissim spent over a span.
type spanCost struct {
	span        time.Duration
	cpu, simCPU time.Duration  // client user+sys, dorissim
	reqs        dorissim.Stats // FE and BE requests
}

// cost reads the counters of startSpan again and returns what was spent
// since st.
func (st spanStart) cost(t *testing.T, ctx context.Context, s *sim, pid int) (spanCost, error) {
	c := spanCost{span: time.Since(st.at), simCPU: s.cpu(t) - st.simCPU}
	cpu, err := procCPU(pid)
	if err != nil {
		return c, err
	}
	c.cpu = cpu - st.cpu
	reqs, err := s.requestStats(ctx)
	if err != nil {
		return c, err
	}
	c.reqs = statsDelta(reqs, st.reqs)
	return c, nil
}

// runSteps runs the binary on cfg and calls step at each of its polls
// until step is done or fails: a measurement in stages (wait for a state,
// read a span's start, read its end) whose readings can fail. It returns
// the run and step's error. rowsAddr is runOpts.rowsAddr.
func runSteps(t *testing.T, ctx context.Context, cfg, rowsAddr string, step func(pid int) (done bool, err error)) (procResult, error) {
	t.Helper()
	var stepErr error
	res := runRPConnectWith(t, ctx, cfg, runOpts{rowsAddr: rowsAddr, stop: func(pid int) bool {
		done, err := step(pid)
		if err != nil {
			stepErr = err
			return true
		}
		return done
	}})
	return res, stepErr
}
