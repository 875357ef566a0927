package input

import (
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
)

// berlinEnv is a simulator whose FE runs in Europe/Berlin: in 2026 the
// clocks skip 02:00-03:00 on March 29 and repeat it on October 25.
func berlinEnv(t *testing.T, conf *Config) *simEnv {
	return newSimEnv(t, dorissim.Config{TimeZone: "Europe/Berlin"}, conf)
}

// scan_timestamp is read in the FE's zone; a time the clocks skip is a
// config error naming the field, not a guess.
func TestScanTimestampBound(t *testing.T) {
	for _, tc := range []struct {
		ts, want, fatal string
	}{
		{ts: "2026-12-01 10:00:00", want: "2026-12-01 09:00:00"},
		{ts: "2026-07-01 10:00:00", want: "2026-07-01 08:00:00"},
		{ts: "2026-10-25 02:30:00", want: "2026-10-25 00:30:00"}, // repeated hour: its first occurrence
		{ts: "2026-03-29 02:30:00", fatal: `scan_timestamp "2026-03-29 02:30:00" does not exist in the Doris FE time zone Europe/Berlin`},
	} {
		e := berlinEnv(t, &Config{ScanTimestamp: tc.ts})
		su, _ := e.startup(t)
		got, err := su.scanTimestampBound(testCtx(t))
		if tc.fatal != "" {
			if !isFatal(err) || !strings.Contains(err.Error(), tc.fatal) {
				t.Errorf("%s: %v, want a fatal error saying %q", tc.ts, err, tc.fatal)
			}
			continue
		}
		if err != nil || got.String() != tc.want {
			t.Errorf("%s: %s, %v; want %s UTC", tc.ts, got, err, tc.want)
		}
		if n := len(e.lines.Lines("INFO", "scan_timestamp "+tc.ts+" in the Doris FE time zone Europe/Berlin is "+tc.want+" UTC")); n != 1 {
			t.Errorf("%s: %d logs of the resolved start, want 1", tc.ts, n)
		}
	}
	// The FE is down: a retryable failure, not a config error.
	e := berlinEnv(t, &Config{ScanTimestamp: "2026-12-01 10:00:00"})
	e.srv.SetFaults(dorissim.Faults{Refuse: "http", RefuseFor: time.Minute})
	su, _ := e.startup(t)
	if _, err := su.scanTimestampBound(testCtx(t)); err == nil || isFatal(err) {
		t.Fatalf("FE down: %v, want a retryable error", err)
	}
}

// feZoneState is a checkpoint written before window_zone: every bound is
// Berlin wall time, one of them in the repeated hour, one skipped, and one
// given twice.
func feZoneState() *checkpoint.State {
	st := checkpoint.New()
	st.WindowZone = ""
	st.ChainProgress(ckb("2026-12-01 10:00:00"), ckb("2026-12-01 10:00:05"), checkpoint.Pos{TSO: 1, Table: "d.a"})
	st.AddTable("d.a", false, checkpoint.Bound{}, 1)
	st.AddTable("d.b", true, ckb("2026-10-25 02:30:00"), 1)
	st.AddTable("d.c", true, ckb("2026-03-29 02:30:00"), 1)
	st.FinishSnapshot("d.c") // catching up from its start
	st.AddTable("d.d", true, ckb("2026-12-01 10:00:00"), 1)
	return st
}

// An old checkpoint's FE wall times become the UTC bounds of the same
// instants, once; the log says what each became and why.
func TestConvertToUTC(t *testing.T) {
	e := berlinEnv(t, &Config{CheckpointKey: "k", CheckpointCache: cpCache})
	su, _ := e.startup(t)
	st := feZoneState()
	if err := su.convertToUTC(testCtx(t), st); err != nil {
		t.Fatal(err)
	}
	if st.InFEZone() || st.WindowZone != checkpoint.WindowZoneUTC {
		t.Fatalf("window_zone %q after conversion, want UTC", st.WindowZone)
	}
	if st.Stream.Start != ckb("2026-12-01 09:00:00") || st.Stream.End != ckb("2026-12-01 09:00:05") || st.Stream.Last == nil {
		t.Fatalf("stream %+v, want its bounds an hour earlier (CET) and its last row kept", st.Stream)
	}
	if got := st.Tables["d.b"].Start; got != ckb("2026-10-25 00:30:00") {
		t.Fatalf("start in the repeated hour became %s, want its earlier instant 00:30 UTC", got)
	}
	if got := st.Tables["d.d"].Start; got != ckb("2026-12-01 09:00:00") {
		t.Fatalf("d.d start %s, want 09:00 UTC", got)
	}
	c := st.Tables["d.c"]
	if c.Start == ckb("2026-03-29 02:30:00") || c.CatchUp.Start != c.Start {
		t.Fatalf("skipped time: start %s, catch-up %+v; want both converted alike", c.Start, c.CatchUp)
	}
	logs := e.lines.Lines("INFO", "converted once to UTC")
	if len(logs) != 1 {
		t.Fatalf("%d conversion logs, want 1", len(logs))
	}
	log := logs[0]
	for _, want := range []string{
		"Checkpoint key k in cache cp", "Europe/Berlin",
		"2026-10-25 02:30:00 -> 2026-10-25 00:30:00 UTC (in a repeated hour",
		"2026-03-29 02:30:00 -> ", "(a time the clocks skip",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("conversion log %q does not say %q", log, want)
		}
	}
	if n := strings.Count(log, "2026-12-01 10:00:00 -> "); n != 1 {
		t.Errorf("a time given twice is noted %d times, want once", n)
	}
}

// A checkpoint without bounds (snapshot only) still becomes UTC, and says so.
func TestConvertToUTCWithoutBounds(t *testing.T) {
	e := berlinEnv(t, &Config{CheckpointKey: "k", CheckpointCache: cpCache})
	su, _ := e.startup(t)
	st := checkpoint.New()
	st.WindowZone = ""
	st.AddTable("d.a", true, checkpoint.Bound{}, 1)
	if err := su.convertToUTC(testCtx(t), st); err != nil || st.InFEZone() {
		t.Fatalf("convertToUTC = %v, zone %q; want UTC", err, st.WindowZone)
	}
	if n := len(e.lines.Lines("INFO", "it holds no window bound")); n != 1 {
		t.Fatalf("%d logs saying there was nothing to convert, want 1", n)
	}
}

// When the FE cannot say what a time means, the checkpoint is left as it
// was and the error names the time.
func TestConvertToUTCFailureLeavesTheState(t *testing.T) {
	e := berlinEnv(t, &Config{CheckpointKey: "k", CheckpointCache: cpCache})
	su, _ := e.startup(t)
	e.srv.SetFaults(dorissim.Faults{Refuse: "http", RefuseFor: time.Minute})
	st := feZoneState()
	before := st.Clone()
	err := su.convertToUTC(testCtx(t), st)
	if err == nil || !strings.Contains(err.Error(), "converting checkpoint time 2026-12-01 10:00:00 from the Doris FE time zone to UTC") {
		t.Fatalf("convertToUTC with the FE down: %v, want an error naming the time", err)
	}
	if !st.InFEZone() || !checkpoint.Equal(st, before) {
		t.Fatalf("a failed conversion changed the state: %+v", st)
	}
}

// walltime_test.go covers an hour repeated; Lord Howe repeats half an
// hour, and a zone Go could not load repeats nothing.
func TestRepeatedHourHalfHourAndNoZone(t *testing.T) {
	first, _ := doris.ParseUTCWindowBound("2026-04-04 14:45:00")  // 01:45 +11:00
	second, _ := doris.ParseUTCWindowBound("2026-04-04 15:15:00") // 01:45 +10:30
	lh := mustZone(t, "Australia/Lord_Howe")
	if !repeatedHour(lh, "2026-04-05 01:45:00", first) || repeatedHour(lh, "2026-04-05 01:45:00", second) {
		t.Errorf("Lord Howe's repeated half hour: first pass %v, second %v; want true, false",
			repeatedHour(lh, "2026-04-05 01:45:00", first), repeatedHour(lh, "2026-04-05 01:45:00", second))
	}
	if repeatedHour(doris.FEZone{}, "2026-04-05 01:45:00", first) {
		t.Errorf("a zone without a location reported a repeated hour")
	}
}
