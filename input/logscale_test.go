package input

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
)

// The input follows 40 tables from the start (initial mode, with 7 more
// that have no row binlog and are skipped), then 40 more that a discovery
// finds; after a restart 7 of the first are gone and 7 new ones selected.
// At info level and above no line names more than the first few tables,
// and the start-up lines count the tables per phase; at debug level every
// table is named on its way through the start, its snapshot, its catch-up
// and the restart.
func TestLogsNameAFewTablesAboveDebugAndEveryTableAtDebug(t *testing.T) {
	const shown = 5 // the tables a summary line names
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	names := func(prefix string, n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("d.%s%02d", prefix, i)
		}
		return out
	}
	create := func(keys []string, ddl string) []string {
		var stmts []string
		for _, k := range keys {
			stmts = append(stmts, "CREATE TABLE "+k+ddl, "INSERT INTO "+k+" VALUES (1)")
		}
		return stmts
	}
	first, plain, found, gone, added := names("t", 40), names("p", 7), names("n", 8), names("t", 7), names("m", 7)
	stmts := append([]string{"CREATE DATABASE d"}, create(first, binlogDDL)...)
	stmts = append(stmts, create(plain, plainDDL)...)
	e := newSimEnv(t, dorissim.Config{}, &Config{ScanMode: "initial", Selection: includeSelection(`^d\.`),
		DiscoveryInterval: time.Second, PollInterval: time.Second, MaxParallelSnapshotTables: 4}, stmts...)
	e.conf.CheckpointCache, e.conf.CheckpointKey = cpCache, "k"

	// Run 1: the start, the snapshots, the switch to the binlog, and a
	// discovery that finds 40 new tables.
	r := startLoggedReader(t, ctx, e)
	waitLogged(t, ctx, e, "INFO", "Binlog phase: reading", 1)
	e.exec(t, create(found, binlogDDL)...)
	waitCommitted(t, ctx, r, func(st *checkpoint.State) bool { return inBinlog(st, append(first, found...)) })
	stopReader(t, r)

	// Run 2: a restart that finds 7 tables gone and 7 newly selected.
	for _, k := range gone {
		e.exec(t, "DROP TABLE "+k)
	}
	e.exec(t, create(added, binlogDDL)...)
	r = startLoggedReader(t, ctx, e)
	waitCommitted(t, ctx, r, func(st *checkpoint.State) bool {
		_, stillThere := st.Tables[gone[0]]
		return !stillThere && inBinlog(st, added)
	})
	stopReader(t, r)

	if testing.Verbose() {
		t.Log(strings.Join(e.lines.Lines("INFO", ""), "\n"))
	}
	tableName := regexp.MustCompile(`\bd\.[tpnm]\d\d\b`)
	for _, level := range []string{"INFO", "WARN", "ERROR"} {
		for _, l := range e.lines.Lines(level, "") {
			named := map[string]bool{}
			for _, n := range tableName.FindAllString(l, -1) {
				named[n] = true
			}
			if len(named) > shown {
				t.Errorf("a line at %s names %d tables, want at most %d: %s", level, len(named), shown, l)
			}
		}
	}
	// Nor do the lines at info level grow with the tables: about 20 here,
	// where a line per table and step would be hundreds.
	if info := e.lines.Lines("INFO", ""); len(info) >= len(first) {
		t.Errorf("%d lines at INFO for %d tables, want fewer than the tables:\n%s", len(info), len(first), strings.Join(info, "\n"))
	}
	if errs := e.lines.Lines("ERROR", ""); len(errs) > 0 {
		t.Errorf("errors logged:\n%s", strings.Join(errs, "\n"))
	}

	// The start-up lines: the stream's start and the tables per phase.
	expectLine(t, e, "INFO", `Starting with scan_mode initial: binlog from \d{4}-\d\d-\d\d \d\d:\d\d:\d\d; `+
		`in snapshot 40 tables: d\.t00, d\.t01, d\.t02, d\.t03, d\.t04 and 35 more"`)
	expectLine(t, e, "INFO", `Resuming from the checkpoint in cache cp \(key k: binlog (from|window) [^;]*; `+
		`in binlog 48 tables: d\.n00, d\.n01, d\.n02, d\.n03, d\.n04 and 43 more\)`)
	expectLine(t, e, "WARN", `no longer selected or no longer exist leave the stream and the checkpoint: 7 tables: d\.t00, d\.t01, d\.t02, d\.t03, d\.t04 and 2 more`)
	expectLine(t, e, "INFO", `Tables newly selected join the stream: 7 tables: d\.m00, d\.m01, d\.m02, d\.m03, d\.m04 and 2 more`)
	expectLine(t, e, "INFO", `Snapshots finished \(40 splits\): 40 tables: d\.t00, d\.t01, d\.t02, d\.t03, d\.t04 and 35 more"`)
	expectLine(t, e, "INFO", `Snapshots finished \(7 splits\): 7 tables: d\.m00, d\.m01, d\.m02, d\.m03, d\.m04 and 2 more; they catch up on their own binlog next`)
	expectLine(t, e, "INFO", `Caught up on their own binlog and joined the shared windows: 7 tables: d\.m00, d\.m01, d\.m02, d\.m03, d\.m04 and 2 more`)
	// Each run warns about the skipped tables once.
	expectLines(t, e, "WARN", `Skipping table d\.p00: `, 2)
	expectLines(t, e, "WARN", `\(why each is skipped is logged at debug level\): 2 tables: d\.p05, d\.p06`, 2)
	// The new tables may be found by one discovery or by more: each
	// discovery's lines count its own.
	for _, sum := range []struct{ level, line string }{
		{"INFO", `Table discovery: added (\d+) tables?: d\.n`},
		{"INFO", `Snapshots finished \(\d+ splits\): (\d+) tables?: d\.n\d\d.*; they catch up on their own binlog next`},
		{"INFO", `Caught up on their own binlog and joined the shared windows: (\d+) tables?: d\.n`},
	} {
		if n := countedTables(e, sum.level, sum.line); n != len(found) {
			t.Errorf("lines %q count %d tables, want %d", sum.line, n, len(found))
		}
	}

	// At debug level every table is named.
	for _, k := range first {
		expectDebug(t, e, "Table "+k+" at the start: snapshot, 0 tablets done")
		expectDebug(t, e, "Snapshot of "+k+": ")
		expectDebug(t, e, "Snapshot of "+k+" finished")
	}
	for _, k := range plain { // the first few are warnings
		if len(e.lines.Lines("", "Skipping table "+k+": ")) == 0 {
			t.Errorf("no line contains %q", "Skipping table "+k+": ")
		}
	}
	for _, k := range append(found, added...) {
		expectDebug(t, e, "Table "+k+" joins the stream: snapshot, 0 tablets done, its binlog from ")
		expectDebug(t, e, "Table "+k+" catches up on its binlog [")
		expectDebug(t, e, "Table "+k+" caught up to ")
	}
	for _, k := range append(first, found...) {
		expectDebug(t, e, "Table "+k+" in the checkpoint: binlog")
	}
	for _, k := range gone {
		expectDebug(t, e, "Table "+k+" is in the checkpoint but no longer selected or no longer exists")
	}
}

// startLoggedReader connects a reader on e that logs into e.lines, and
// reads and acknowledges its batches until it is stopped.
func startLoggedReader(t *testing.T, ctx context.Context, e *simEnv) *reader {
	t.Helper()
	r, err := newReader(e.conf, service.BatchPolicy{}, e.res)
	if err != nil {
		t.Fatal(err)
	}
	r.log = e.log
	if err := r.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	go func() {
		for {
			_, ack, err := r.ReadBatch(ctx)
			if err != nil {
				if !errors.Is(err, service.ErrNotConnected) && ctx.Err() == nil {
					t.Errorf("reading: %v", err)
				}
				return
			}
			if err := ack(ctx, nil); err != nil && ctx.Err() == nil {
				t.Errorf("ack: %v", err)
				return
			}
		}
	}()
	return r
}

func stopReader(t *testing.T, r *reader) {
	t.Helper()
	if err := r.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// waitCommitted waits, bounded by ctx, until r's committed position
// satisfies ok.
func waitCommitted(t *testing.T, ctx context.Context, r *reader, ok func(*checkpoint.State) bool) {
	t.Helper()
	for {
		if st, has := r.del.Committed(); has && ok(st) {
			return
		}
		select {
		case <-ctx.Done():
			st, _ := r.del.Committed()
			t.Fatalf("the committed position never got there; it is %+v", st)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func inBinlog(st *checkpoint.State, keys []string) bool {
	for _, k := range keys {
		if ts := st.Tables[k]; ts == nil || ts.Phase != checkpoint.PhaseBinlog {
			return false
		}
	}
	return true
}

// waitLogged waits, bounded by ctx, for n lines at level containing sub.
func waitLogged(t *testing.T, ctx context.Context, e *simEnv, level, sub string, n int) {
	t.Helper()
	for len(e.lines.Lines(level, sub)) < n {
		select {
		case <-ctx.Done():
			t.Fatalf("fewer than %d %s lines containing %q", n, level, sub)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// countedTables sums the counts (the pattern's group) of the lines at
// level that match pattern.
func countedTables(e *simEnv, level, pattern string) int {
	re := regexp.MustCompile(pattern)
	sum := 0
	for _, l := range e.lines.Lines(level, "") {
		if m := re.FindStringSubmatch(l); m != nil {
			n, _ := strconv.Atoi(m[1])
			sum += n
		}
	}
	return sum
}

// expectLine checks that exactly one line at level matches pattern.
func expectLine(t *testing.T, e *simEnv, level, pattern string) {
	t.Helper()
	expectLines(t, e, level, pattern, 1)
}

// expectLines checks that want lines at level match pattern.
func expectLines(t *testing.T, e *simEnv, level, pattern string, want int) {
	t.Helper()
	re := regexp.MustCompile(pattern)
	n := 0
	for _, l := range e.lines.Lines(level, "") {
		if re.MatchString(l) {
			n++
		}
	}
	if n != want {
		t.Errorf("%d %s lines match %q, want %d; the %s lines:\n%s", n, level, pattern, want, level, strings.Join(e.lines.Lines(level, ""), "\n"))
	}
}

func expectDebug(t *testing.T, e *simEnv, sub string) {
	t.Helper()
	if len(e.lines.Lines("DEBUG", sub)) == 0 {
		t.Errorf("no debug line contains %q", sub)
	}
}
