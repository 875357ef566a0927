package kafkae2e

import (
	"fmt"
	"log/slog"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// TestLateTableCatchUpInSharedPartition follows database d in initial mode
// with table discovery into ONE single-partition topic with exactly_once.
// d.a changes all the time; d.late is created meanwhile, found, snapshotted,
// and then reads its own binlog from its start up to the chain (its
// catch-up, doris_phase=catchup) after the chain has written newer rows of
// d.a to the partition. The tail filter took those catch-up rows for
// already written and dropped them: a silent loss in a live run. Every
// change of d.a must land exactly once, every change of d.late at least
// once.
func TestLateTableCatchUpInSharedPartition(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.Exec(t, srv, "CREATE DATABASE d")
	harness.CreateTable(t, srv, "d", "a", harness.TableOpts{Buckets: 1})
	w := harness.NewWorkload(srv, "d", "a", 41)
	if err := w.Insert(ctxTimeout(t, 30*time.Second), 5); err != nil {
		t.Fatal(err)
	}
	// The stream's start is a later second: these rows are snapshot only.
	before := incrChanges(t, srv, "d", "a", 0)
	time.Sleep(1100 * time.Millisecond)

	const topic = "doris.d.all"
	kc := startKafka(t, kfake.SeedTopics(1, topic))
	brokers := kc.ListenAddrs()
	c := consume(t, brokers)
	in := harness.SelectYAML(srv, `include: ['d\..*']`, "scan_mode: initial", "table_discovery_interval: 1s")
	logs := &harness.LogCapture{}
	// d.late's snapshot plans slowly, as a big table's snapshot takes a
	// while: the chain moves past d.late's start meanwhile, so that d.late
	// has a window of its own binlog to catch up on. (A fast snapshot
	// finishes before the chain reaches its start and joins directly.)
	proxy := harness.StartFEProxy(t, srv.HTTPAddr())
	proxy.Rewrite(func(path string, status int, body []byte) (int, []byte) {
		if strings.HasSuffix(path, "/d/late/_query_plan") && len(logs.Lines(slog.LevelDebug, "Table d.late joins the stream")) > 0 {
			time.Sleep(2500 * time.Millisecond)
		}
		return status, body
	})
	in = strings.Replace(in, "fenodes: "+srv.HTTPAddr(), "fenodes: "+proxy.Addr(), 1)
	out := fmt.Sprintf(`kafka_franz:
  seed_brokers: [ %s ]
  topic: %s
  key: '${! @key_columns.map_each(c -> this.get(c).string()).join(",") }'
  metadata:
    include_patterns: [ '^(operation|tso|lsn|database_schema|table|doris_phase)$' ]
  max_in_flight: 1
  exactly_once: true
  transactional_id: catchup-e2e
`, strings.Join(brokers, ", "), topic)
	startLoggedStream(t, in, harness.FileCache(t.TempDir()), out, logs)

	// d.a's changes from here on are after the chain's start.
	c.waitFor(t, 30*time.Second, "the snapshot of d.a", func(recs []*kgo.Record) bool {
		return countSnapshot(t, recs, "a") >= 5
	})

	// d.a changes every step; d.late is created at step 3 and from then on
	// every step inserts a row of d.late between two changes of d.a, before
	// and after d.late is found, until a few steps after it caught up and
	// joined the chain.
	const createAt = 3
	var lateIDs []int64
	caughtUp := func() bool { return len(logs.Lines(slog.LevelDebug, "Table d.late caught up")) > 0 }
	deadline := time.Now().Add(25 * time.Second)
	for step, after := 0, 0; after < 4; step++ {
		if time.Now().After(deadline) {
			t.Fatalf("d.late did not catch up within 25s; the log:\n%s", logs.All())
		}
		if err := w.Step(ctxTimeout(t, 30*time.Second)); err != nil {
			t.Fatalf("d.a step %d: %v", step, err)
		}
		if step == createAt {
			harness.CreateTable(t, srv, "d", "late", harness.TableOpts{Buckets: 1})
		}
		if step >= createAt {
			id := int64(len(lateIDs) + 1)
			harness.Exec(t, srv, fmt.Sprintf("INSERT INTO d.late VALUES (%d, 'late-%d', %d, %d.00)", id, id, id, id))
			lateIDs = append(lateIDs, id)
			if err := w.Step(ctxTimeout(t, 30*time.Second)); err != nil {
				t.Fatalf("d.a step %d: %v", step, err)
			}
		}
		if caughtUp() {
			after++ // a few more of both after the join
		}
		time.Sleep(150 * time.Millisecond)
	}

	lateStart := lateBinlogStart(t, logs)
	wantA := subtract(incrChanges(t, srv, "d", "a", 0), before)
	// d.late's snapshot is read as of the last TSO of its binlog's first
	// second: its changes of that second are snapshot rows.
	wantLate := incrChanges(t, srv, "d", "late", lateStart+1000)
	if len(wantA) == 0 || len(wantLate) == 0 {
		t.Fatalf("the workload made %d changes of d.a and %d of d.late after their starts; want some of each", len(wantA), len(wantLate))
	}

	// Bounded wait for every change; what is still missing then was lost.
	var missing string
	wait := time.Now().Add(30 * time.Second)
	for {
		recs := c.records()
		missing = missingChanges(t, recs, topic, wantA, wantLate, lateIDs)
		if missing == "" || time.Now().After(wait) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if missing != "" {
		t.Fatalf("never reached %s within 30s (lost): %s", topic, missing)
	}
	time.Sleep(2 * time.Second) // a duplicate of d.a would arrive by now
	recs := c.records()

	seen := map[string]int{}
	var catchUp, behind int // catch-up records; those after a newer d.a change
	var newestA int64
	for _, r := range recs { // one partition: in offset order
		ev := event(t, r)
		if ev.Phase != "binlog" {
			continue
		}
		seen[posKey(ev)]++
		if ev.Table == "a" {
			newestA = max(newestA, ev.TSO)
		}
		if ph, _ := header(r, "doris_phase"); ph == "catchup" {
			if ev.Table != "late" {
				t.Errorf("offset %d: a catch-up row of table %s; only d.late joined late", r.Offset, ev.Table)
			}
			catchUp++
			if ev.TSO < newestA {
				behind++
			}
		}
	}
	for k := range wantA {
		if seen[k] != 1 {
			t.Errorf("d.a change %s written %d times; want exactly once", k, seen[k])
		}
	}
	for k, n := range seen {
		if strings.HasPrefix(k, "d.a@") && !wantA[k] {
			t.Errorf("d.a change %s (%d times) is not a change of d.a after the stream's start", k, n)
		}
	}
	if catchUp == 0 || behind == 0 {
		t.Errorf("%d records of d.late have doris_phase=catchup, %d of them after a newer change of d.a: the scenario did not exercise a catch-up behind the partition's tail; log:\n%s",
			catchUp, behind, logs.All())
	}
	t.Logf("d.a: %d changes; d.late: %d rows, %d binlog changes from %s, %d catch-up records (%d behind a newer d.a change)",
		len(wantA), len(lateIDs), len(wantLate), doris.UTCWindowBound(lateStart), catchUp, behind)
}

// startLoggedStream is startStream with the stream's log captured in logs.
func startLoggedStream(t *testing.T, input, resources, output string, logs *harness.LogCapture) *stream {
	t.Helper()
	b := service.NewStreamBuilder()
	b.SetLogger(logs.Logger())
	return runStream(t, b, input, resources, output)
}

var lateJoin = regexp.MustCompile(`Table d\.late joins the stream: .*its binlog from (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)`)

// lateBinlogStart is d.late's binlog start (epoch ms) as the input logged it
// when it found the table: its changes from then on are binlog changes.
func lateBinlogStart(t *testing.T, logs *harness.LogCapture) int64 {
	t.Helper()
	for _, l := range logs.Lines(slog.LevelDebug, "Table d.late joins the stream") {
		if m := lateJoin.FindStringSubmatch(l.Text); m != nil {
			ms, err := doris.ParseUTCWindowBound(m[1])
			if err != nil {
				t.Fatal(err)
			}
			return ms
		}
	}
	t.Fatalf("the input never logged d.late's binlog start; the log:\n%s", logs.All())
	return 0
}

// incrChanges is the positions (posKey) of every change of db.table that
// committed at or after fromMs, read from the simulator's binlog.
func incrChanges(t *testing.T, srv *dorissim.Server, db, table string, fromMs int64) map[string]bool {
	t.Helper()
	q := fmt.Sprintf("SELECT __DORIS_BINLOG_TSO__, __DORIS_BINLOG_LSN__, __DORIS_BINLOG_OP__ FROM %s.%s@incr('incrementType' = 'DETAIL')",
		harness.QuoteIdent(db), harness.QuoteIdent(table))
	rows, err := srv.Query(ctxTimeout(t, 30*time.Second), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	out := map[string]bool{}
	for _, r := range rows {
		ev := harness.Event{Database: db, Table: table}
		for i, p := range []*int64{&ev.TSO, &ev.LSN, &ev.Op} {
			if _, err := fmt.Sscan(fmt.Sprint(r[i]), p); err != nil {
				t.Fatalf("%s: row %v: %v", q, r, err)
			}
		}
		if ev.TSO>>18 >= fromMs {
			out[posKey(ev)] = true
		}
	}
	return out
}

func subtract(a, b map[string]bool) map[string]bool {
	for k := range b {
		delete(a, k)
	}
	return a
}

func countSnapshot(t *testing.T, recs []*kgo.Record, table string) int {
	n := 0
	for _, r := range recs {
		if ev := event(t, r); ev.Phase == "snapshot" && ev.Table == table {
			n++
		}
	}
	return n
}

// missingChanges describes what of wantA, wantLate (binlog records) and
// lateIDs (rows of d.late, in any record) is not in topic; "" when nothing.
func missingChanges(t *testing.T, recs []*kgo.Record, topic string, wantA, wantLate map[string]bool, lateIDs []int64) string {
	have, ids := map[string]bool{}, map[string]bool{}
	for _, r := range recs {
		if r.Topic != topic {
			continue
		}
		ev := event(t, r)
		if ev.Table == "late" {
			ids[fmt.Sprint(ev.Row["id"])] = true
		}
		if ev.Phase == "binlog" {
			have[posKey(ev)] = true
		}
	}
	var parts []string
	for _, set := range []struct {
		what string
		want map[string]bool
	}{{"binlog changes of d.a", wantA}, {"binlog changes of d.late", wantLate}} {
		var miss []string
		for k := range set.want {
			if !have[k] {
				miss = append(miss, k)
			}
		}
		if len(miss) > 0 {
			sort.Strings(miss)
			parts = append(parts, fmt.Sprintf("%d of %d %s (e.g. %s)", len(miss), len(set.want), set.what, strings.Join(miss[:min(len(miss), 3)], ", ")))
		}
	}
	var rows []string
	for _, id := range lateIDs {
		if !ids[fmt.Sprint(id)] {
			rows = append(rows, fmt.Sprint(id))
		}
	}
	if len(rows) > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d rows of d.late in no record at all (ids %s)", len(rows), len(lateIDs), strings.Join(rows, ",")))
	}
	return strings.Join(parts, "; ")
}
