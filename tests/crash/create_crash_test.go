package crash

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// The load crash suite into created targets: lcc.src (UNIQUE KEY) and
// lcc.dup (DUPLICATE KEY), both with a row binlog, stream into lcc_t,
// which does not exist; create_tables creates both targets. SIGKILLs at
// random points, the first at start-up (creation included). Afterwards
// lcc_t.src equals the source, lcc_t.dup holds every source row exactly
// once, and each target
// has its source's key model.
const (
	lccDB     = "lcc"
	lccTarget = "lcc_t"
)

func TestCrashLoadCreatedTargets(t *testing.T) {
	sh := loadCrashShapeFor()
	sd := seed(t)
	rng := rand.New(rand.NewPCG(sd, sd^0x5eed0c7e))
	t.Logf("load-crash-created: seed %d (CRASH_SEED=%d replays it), %d rows, %d kills", sd, sd, sh.rows, sh.kills)
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, lccDB, "src", harness.TableOpts{Buckets: 4})
	harness.CreateTable(t, srv, lccDB, "dup", harness.TableOpts{Duplicate: true, Buckets: 2})
	wl := harness.NewWorkload(srv, lccDB, "src", sd+7)
	wd := harness.NewWorkload(srv, lccDB, "dup", sd+11)
	for _, w := range []*harness.Workload{wl, wd} {
		if err := w.Insert(ctxFor(t, time.Minute), sh.rows); err != nil {
			t.Fatal(err)
		}
	}

	dir := t.TempDir()
	cacheDir := filepath.Join(dir, "cp")
	start := runLauncher(t, dir, cacheDir, createdCrashConfig(srv, cacheDir))
	// The first run dies at start-up: listing, creating the database and
	// tables, or loading the snapshot into them.
	early := start()
	early.waitLog(t, 60*time.Second, "Running main config")
	time.Sleep(time.Duration(rng.IntN(1500)) * time.Millisecond)
	early.kill(t)
	t.Logf("killed run %d at start-up", early.no)
	first := start()
	first.waitLog(t, 60*time.Second, "Binlog phase: reading")

	// The UNIQUE source gets inserts, updates and deletes; the DUPLICATE
	// one appends only (Doris has no UPDATE there).
	w, err := newWriter(srv, []*harness.Workload{wl}, sd^0xabad1dea, sh.pause)
	if err != nil {
		t.Fatal(err)
	}
	w.start(sh.maxSteps)
	t.Cleanup(func() { _, _ = w.stop() })
	stopDup := appendLoop(wd, sh.pause, sh.maxSteps)
	t.Cleanup(func() { _, _ = stopDup() })

	for k := range sh.kills {
		r := first
		if k > 0 {
			r = start()
		}
		time.Sleep(time.Duration(300+rng.IntN(3000)) * time.Millisecond)
		r.kill(t)
		t.Logf("killed run %d", r.no)
	}
	final := start()
	time.Sleep(time.Duration(500+rng.IntN(1500)) * time.Millisecond)
	steps, err := w.stop()
	if err != nil {
		t.Fatalf("workload on %s.src: %v", lccDB, err)
	}
	appends, err := stopDup()
	if err != nil {
		t.Fatalf("workload on %s.dup: %v", lccDB, err)
	}

	want := harness.TableState(t, srv, lccDB, "src", "id", columns...)
	wantDup := rowCounts(t, srv, lccDB, "dup")
	deadline := time.Now().Add(2 * time.Minute)
	var diff string
	var dups, lost int
	for {
		diff = harness.Diff(want, harness.TableState(t, srv, lccTarget, "src", "id", columns...))
		dups, lost = compareCounts(wantDup, rowCounts(t, srv, lccTarget, "dup"))
		if diff == "" && dups == 0 && lost == 0 {
			break
		}
		if final.exited() {
			t.Fatalf("the final run exited early (%v)", final.waitErr)
		}
		if time.Now().After(deadline) {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	if code := final.terminate(t, 60*time.Second); code != 0 {
		t.Errorf("the final run exited with %d after SIGTERM", code)
	}

	line := fmt.Sprintf("load-crash-created: kills=%d dup_rows=%d duplicates=%d lost=%d", sh.kills+1, len(wantDup), dups, lost)
	t.Logf("%s (workload steps %d, appends %d)", line, steps, appends)
	fmt.Println(line)
	if diff != "" {
		t.Errorf("the created UNIQUE target differs from the source:\n%s", diff)
	}
	if dups != 0 || lost != 0 {
		t.Errorf("the created DUPLICATE KEY target holds %d duplicate and %d lost rows", dups, lost)
	}
	for table, model := range map[string]string{"src": "UNIQUE_KEYS", "dup": "DUP_KEYS"} {
		p := showCreate(t, srv, lccTarget, table)
		if p.KeysType != model || !slices.Equal(p.KeyColumns, []string{"id"}) {
			t.Errorf("created %s.%s has %s %v; its source has %s [id]", lccTarget, table, p.KeysType, p.KeyColumns, model)
		}
	}
}

// createdCrashConfig streams every table of lcc into lcc_t, creating the
// targets.
func createdCrashConfig(srv *dorissim.Server, cacheDir string) string {
	var b strings.Builder
	b.WriteString("http:\n  enabled: false\nlogger:\n  level: INFO\n  format: logfmt\nshutdown_timeout: 30s\n")
	b.WriteString("input:\n")
	harness.Indent(&b, harness.SelectYAML(srv, `include: [ 'lcc\..*' ]`, "scan_mode: initial", "batch_size: 50", "checkpoint_limit: 200", "request_tablet_size: 1", "snapshot_query_rows: 0"))
	// One pipeline thread: several would reorder batches of one table.
	b.WriteString("pipeline:\n  threads: 1\n")
	fmt.Fprintf(&b, "output:\n  doris_load:\n    fenodes: %s\n    username: root\n    password: \"\"\n    table_identifier: %s.${! @table }\n    request_read_timeout: 30s\n", srv.HTTPAddr(), lccTarget)
	b.WriteString("    create_tables:\n      enabled: true\n      properties:\n        replication_num: \"1\"\n")
	b.WriteString(harness.FileCache(cacheDir))
	return b.String()
}

// appendLoop inserts one or two rows into wd every pause, at most max
// times, until the returned stop is called; stop reports the inserts done
// and the first error.
func appendLoop(wd *harness.Workload, pause time.Duration, max int) func() (int, error) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	var n int
	var err error
	go func() {
		defer close(done)
		for n < max && ctx.Err() == nil {
			sctx, scancel := context.WithTimeout(context.Background(), 30*time.Second)
			err = wd.Insert(sctx, 1+n%2)
			scancel()
			if err != nil {
				return
			}
			n++
			select {
			case <-ctx.Done():
			case <-time.After(pause):
			}
		}
	}()
	return func() (int, error) {
		cancel()
		select {
		case <-done:
		case <-time.After(40 * time.Second):
			return n, fmt.Errorf("the append loop did not stop within 40s")
		}
		return n, err
	}
}

// rowCounts counts each row of db.table over columns: DUPLICATE KEY rows
// compare as a multiset.
func rowCounts(t *testing.T, srv *dorissim.Server, db, table string) map[string]int {
	t.Helper()
	res, err := srv.Query(ctxFor(t, time.Minute), "SELECT "+strings.Join(quoteAll(columns), ", ")+" FROM "+doris.QualifiedTable(db, table))
	if err != nil {
		if strings.Contains(err.Error(), "Unknown") || strings.Contains(err.Error(), "does not exist") {
			return map[string]int{}
		}
		t.Fatalf("reading %s.%s: %v", db, table, err)
	}
	out := map[string]int{}
	for _, r := range res {
		out[fmt.Sprint(r...)]++
	}
	return out
}

func quoteAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = harness.QuoteIdent(n)
	}
	return out
}

// compareCounts counts rows the target holds more often than the source
// (duplicates, or rows the source never had) and less often (lost).
func compareCounts(want, got map[string]int) (dups, lost int) {
	for k, n := range got {
		dups += max(0, n-want[k])
	}
	for k, n := range want {
		lost += max(0, n-got[k])
	}
	return dups, lost
}

// showCreate parses SHOW CREATE TABLE of db.table.
func showCreate(t *testing.T, srv *dorissim.Server, db, table string) *doris.TableProperties {
	t.Helper()
	res, err := srv.Query(ctxFor(t, 30*time.Second), "SHOW CREATE TABLE "+doris.QualifiedTable(db, table))
	if err != nil || len(res) != 1 || len(res[0]) < 2 {
		t.Fatalf("show create table %s.%s: %v %v", db, table, res, err)
	}
	p, err := doris.ParseShowCreateTable(fmt.Sprint(res[0][1]))
	if err != nil {
		t.Fatal(err)
	}
	return p
}
