package crash

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// The transaction-marker crash suite: multi-table transactions of up to
// 14 changes, batches of 3, and SIGKILLs that land inside a transaction.
const (
	mkDB         = "mkcrash"
	mkBatch      = 3
	mkLimit      = 2 // checkpoint_limit
	mkTxns       = 100
	mkMidKills   = 4 // kills that must land inside a transaction
	mkMaxKills   = 12
	mkMaxTxnRows = 14
)

// mkLine is one line of a marker run's output.
type mkLine struct {
	op, table string
	tso, lsn  int64
	id        string
	count     int64            // a commit's event_count
	tables    map[string]int64 // a commit's per-table counts
}

func (l mkLine) marker() bool { return l.op == "begin" || l.op == "commit" }

// readMarkerOutput reads a run's lines; a killed run's torn last line is
// dropped.
func readMarkerOutput(t *testing.T, path string) []mkLine {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(b, []byte{'\n'})
	lines = lines[:len(lines)-1] // "" or a torn line
	out := make([]mkLine, 0, len(lines))
	for i, raw := range lines {
		var ol struct {
			Meta map[string]any `json:"meta"`
			Row  map[string]any `json:"row"`
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&ol); err != nil {
			t.Fatalf("%s line %d: %v: %q", path, i+1, err, raw)
		}
		l := mkLine{op: fmt.Sprint(ol.Meta["operation"]), tso: toInt(ol.Meta["tso"])}
		if l.marker() {
			if toInt(ol.Row["tso"]) != l.tso || ol.Row["transaction_id"] != fmt.Sprint(l.tso) {
				t.Fatalf("%s line %d: marker body %v disagrees with its metadata tso %d", path, i+1, ol.Row, l.tso)
			}
			if l.op == "commit" {
				l.count = toInt(ol.Row["event_count"])
				l.tables = map[string]int64{}
				tables, _ := ol.Row["tables"].([]any)
				for _, tc := range tables {
					m, _ := tc.(map[string]any)
					l.tables[fmt.Sprint(m["table"])] = toInt(m["event_count"])
				}
			}
		} else {
			l.table = fmt.Sprint(ol.Meta["database_schema"]) + "." + fmt.Sprint(ol.Meta["table"])
			l.lsn = toInt(ol.Meta["lsn"])
			l.id = fmt.Sprint(ol.Row["id"])
		}
		out = append(out, l)
	}
	return out
}

func markerCrashConfig(srv *dorissim.Server, from, cacheDir, outPath string) string {
	var b strings.Builder
	b.WriteString("http:\n  enabled: false\nlogger:\n  level: INFO\n  format: logfmt\nshutdown_timeout: 30s\ninput:\n")
	harness.Indent(&b, harness.SelectYAML(srv, `include: ['`+mkDB+`\..*']`, "scan_mode: from-timestamp", "scan_timestamp: '"+from+"'",
		fmt.Sprintf("batch_size: %d", mkBatch), fmt.Sprintf("checkpoint_limit: %d", mkLimit), "include_transaction_markers: true"))
	// A short sleep per message keeps a run writing a transaction for tens
	// of milliseconds, so a kill decided mid-transaction still lands there
	// on a loaded machine (without it, 3 of 8 kills landed in one make test).
	b.WriteString("pipeline:\n  threads: 1\n  processors:\n    - mapping: 'root = {\"meta\": @, \"row\": this}'\n    - sleep:\n        duration: 2ms\n")
	fmt.Fprintf(&b, "output:\n  file:\n    path: %q\n    codec: lines\n", outPath)
	b.WriteString(harness.FileCache(cacheDir))
	return b.String()
}

// markerWriter commits mkTxns transactions: each inserts new rows into
// one or both tables, some also update a row written before.
func markerWriter(ctx context.Context, srv *dorissim.Server, rng *rand.Rand) error {
	next := map[string]int{"a": 0, "b": 0}
	for i := range mkTxns {
		var stmts []string
		for _, tbl := range []string{"a", "b"} {
			n := rng.IntN(mkMaxTxnRows/2 + 1)
			if tbl == "a" && n == 0 {
				n = 1
			}
			var vals []string
			for range n {
				next[tbl]++
				vals = append(vals, fmt.Sprintf("(%d,'%s%d',%d,1.00)", next[tbl], tbl, next[tbl], i))
			}
			if len(vals) > 0 {
				stmts = append(stmts, fmt.Sprintf("INSERT INTO %s.%s VALUES %s", mkDB, tbl, strings.Join(vals, ",")))
			}
		}
		if err := srv.ExecTx(ctx, stmts...); err != nil {
			return fmt.Errorf("transaction %d: %w", i, err)
		}
		time.Sleep(time.Duration(20+rng.IntN(80)) * time.Millisecond)
	}
	return nil
}

// TestCrashTransactionMarkers kills the binary inside transactions while
// multi-table transactions stream with include_transaction_markers, and
// checks, over every run's output in order: no transaction is left with a
// begin and no commit; between the last begin of each TSO and its commit
// lie exactly that transaction's changes, once each, and the commit counts
// them per table; no change appears outside a begin of its own TSO; and
// the changes repeated besides are within the bound a restart from the
// last whole transaction allows.
func TestCrashTransactionMarkers(t *testing.T) {
	sd := seed(t)
	t.Logf("seed %d (CRASH_SEED to repeat)", sd)
	rng := rand.New(rand.NewPCG(sd, 35))
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, mkDB, "a", harness.TableOpts{})
	harness.CreateTable(t, srv, mkDB, "b", harness.TableOpts{})
	from := harness.Now(t, srv)
	dir := t.TempDir()
	cacheDir := filepath.Join(dir, "cp")
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		t.Fatal(err)
	}

	wctx, wcancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer wcancel()
	var wg sync.WaitGroup
	var werr error
	wg.Go(func() { werr = markerWriter(wctx, srv, rand.New(rand.NewPCG(sd, 36))) })

	start := func(no int) *run {
		r := &run{no: no, outPath: filepath.Join(dir, fmt.Sprintf("out-%02d.jsonl", no)),
			logPath: filepath.Join(dir, fmt.Sprintf("run-%02d.log", no)), done: make(chan struct{})}
		conf := filepath.Join(dir, configName(no))
		if err := os.WriteFile(conf, []byte(markerCrashConfig(srv, from, cacheDir, r.outPath)), 0o600); err != nil {
			t.Fatal(err)
		}
		r.launch(t, conf, dir)
		return r
	}
	var runs []*run
	midKills := 0
	for no := 0; midKills < mkMidKills && no < mkMaxKills; no++ {
		r := start(no)
		runs = append(runs, r)
		// Kill once the run wrote a few lines and its output ends inside a
		// transaction (bounded: a run that never does is killed anyway).
		want := 5 + rng.IntN(30)
		deadline := time.Now().Add(40 * time.Second)
		for time.Now().Before(deadline) && !r.exited() {
			ls := readMarkerOutput(t, r.outPath)
			if len(ls) >= want && ls[len(ls)-1].op != "commit" {
				break
			}
			time.Sleep(time.Duration(rng.IntN(15)) * time.Millisecond)
		}
		r.kill(t)
		if ls := readMarkerOutput(t, r.outPath); len(ls) > 0 && ls[len(ls)-1].op != "commit" {
			midKills++
		}
	}
	if midKills < mkMidKills {
		t.Fatalf("only %d of %d kills landed inside a transaction", midKills, len(runs))
	}
	wg.Wait()
	if werr != nil {
		t.Fatal(werr)
	}
	time.Sleep(1100 * time.Millisecond) // the last commit's second has passed
	to := harness.Now(t, srv)
	src := map[string][]changeRow{}
	var lastTSO int64
	for _, tbl := range []string{"a", "b"} {
		src[mkDB+"."+tbl] = tableChanges(t, srv, mkDB, tbl, from, to)
		for _, c := range src[mkDB+"."+tbl] {
			lastTSO = max(lastTSO, c.tso)
		}
	}
	final := start(len(runs))
	runs = append(runs, final)
	harness.WaitFor(t, 90*time.Second, "the commit of the last transaction", func() bool {
		ls := readMarkerOutput(t, final.outPath)
		return len(ls) > 0 && ls[len(ls)-1].op == "commit" && ls[len(ls)-1].tso == lastTSO
	})
	if code := final.terminate(t, 60*time.Second); code != 0 {
		t.Fatalf("the last run exited %d\n%s", code, final.logTail())
	}
	checkMarkedRuns(t, runs, src, len(runs)-1)
}

// checkMarkedRuns checks the runs' outputs, in order, against the source's
// changes per table; kills is how many runs were killed.
func checkMarkedRuns(t *testing.T, runs []*run, src map[string][]changeRow, kills int) {
	t.Helper()
	type change struct {
		tso, lsn int64
		table    string
	}
	want := map[int64]map[string]int64{} // tso -> table -> changes
	wantSet := map[change]bool{}
	nSrc := 0
	for table, rows := range src {
		for _, c := range rows {
			if want[c.tso] == nil {
				want[c.tso] = map[string]int64{}
			}
			want[c.tso][table]++
			wantSet[change{c.tso, c.lsn, table}] = true
			nSrc++
		}
	}
	total, maxTxn := 0, int64(0)
	for _, tables := range want {
		var n int64
		for _, c := range tables {
			n += c
		}
		maxTxn = max(maxTxn, n)
	}
	// lastSpan: each TSO's changes after its last begin, and its commit.
	type span struct {
		changes map[change]int
		n       int64
		perTbl  map[string]int64
		commit  *mkLine
	}
	last := map[int64]*span{}
	for _, r := range runs {
		var open *span
		var openTSO int64
		for i, l := range readMarkerOutput(t, r.outPath) {
			where := fmt.Sprintf("run %d line %d (%s@%d)", r.no, i+1, l.op, l.tso)
			switch l.op {
			case "begin":
				if open != nil {
					t.Fatalf("%s: a begin while %d is open in the same run", where, openTSO)
				}
				open, openTSO = &span{changes: map[change]int{}, perTbl: map[string]int64{}}, l.tso
				last[l.tso] = open
			case "commit":
				if open == nil || openTSO != l.tso {
					t.Fatalf("%s: a commit of a transaction not begun in this run (open: %d)", where, openTSO)
				}
				c := l
				open.commit, open = &c, nil
			default:
				total++
				if open == nil || openTSO != l.tso {
					t.Fatalf("%s: a change outside a begin of its own TSO (open: %d)", where, openTSO)
				}
				open.changes[change{l.tso, l.lsn, l.table}]++
				open.n++
				open.perTbl[l.table]++
			}
		}
	}
	for tso, tables := range want {
		sp := last[tso]
		switch {
		case sp == nil:
			t.Fatalf("transaction %d (%v) never delivered", tso, tables)
		case sp.commit == nil:
			t.Fatalf("transaction %d: its last begin has no commit", tso)
		case fmt.Sprint(sp.perTbl) != fmt.Sprint(tables) || int64(len(sp.changes)) != sp.n:
			t.Fatalf("transaction %d: %v changes (%d distinct of %d) after its last begin, want %v once each", tso, sp.perTbl, len(sp.changes), sp.n, tables)
		case sp.commit.count != sp.n || fmt.Sprint(sp.commit.tables) != fmt.Sprint(sp.perTbl):
			t.Fatalf("transaction %d: commit counts %d %v, delivered %d %v", tso, sp.commit.count, sp.commit.tables, sp.n, sp.perTbl)
		}
		for c := range sp.changes {
			if !wantSet[c] {
				t.Fatalf("transaction %d: change %v is not in the source", tso, c)
			}
		}
	}
	if len(last) != len(want) {
		t.Fatalf("%d transactions delivered, the source has %d", len(last), len(want))
	}
	// A restart resends from the last whole transaction that was saved:
	// what checkpoint_limit batches held besides, plus the transaction that
	// was open.
	bound := kills * (mkLimit*mkBatch + mkBatch + int(maxTxn))
	if dups := total - nSrc; dups > bound {
		t.Fatalf("%d changes repeated over %d kills, more than the bound %d", dups, kills, bound)
	} else {
		t.Logf("%d transactions, %d changes; %d repeated over %d kills (bound %d)", len(want), nSrc, dups, kills, bound)
	}
}
