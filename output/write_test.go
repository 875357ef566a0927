package output

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

func TestWriteBatchRoutesOneLoadPerTarget(t *testing.T) {
	f := newFakeDoris(t)
	f.models["shop_replica.orders"] = keysUnique
	f.models["shop_replica.items"] = keysUnique
	o := newTestOutput(t, f, routeYAML)
	batch := service.MessageBatch{
		change(`{"id":1}`, "shop", "orders", opInsert, 500, 1),
		change(`{"id":9,"sku":"a"}`, "shop", "items", opInsert, 500, 2),
		change(`{"id":1}`, "shop", "orders", opUpdateBefore, 501, 1),
		change(`{"id":1,"x":2}`, "shop", "orders", opUpdateAfter, 501, 1),
		change(`{"id":2}`, "shop", "orders", opDelete, 502, 1),
	}
	if err := o.WriteBatch(testCtx(t), batch); err != nil {
		t.Fatal(err)
	}
	loads := f.beLoads()
	if len(loads) != 2 {
		t.Fatalf("%d loads, want one per target", len(loads))
	}
	for _, l := range loads {
		if !l.AuthOK {
			t.Errorf("load %s reached the BE without the credentials", l.Path)
		}
		if l.Header.Get("format") != "json" || l.Header.Get("read_json_by_line") != "true" || l.Header.Get("hidden_columns") != deleteSignColumn {
			t.Errorf("load %s headers %v", l.Path, l.Header)
		}
	}
	wantOrders := []string{`{"id":1,"__DORIS_DELETE_SIGN__":0}`, `{"id":1,"x":2,"__DORIS_DELETE_SIGN__":0}`, `{"id":2,"__DORIS_DELETE_SIGN__":1}`}
	if got := lines(loads[0].Body); !slices.Equal(got, wantOrders) || loads[0].Path != "/be/shop_replica/orders/_stream_load" {
		t.Fatalf("orders load %s body %q, want %q", loads[0].Path, got, wantOrders)
	}
	if got := lines(loads[1].Body); !slices.Equal(got, []string{`{"id":9,"sku":"a","__DORIS_DELETE_SIGN__":0}`}) {
		t.Fatalf("items body %q", got)
	}
	if l := loads[0].Header.Get("label"); !strings.HasSuffix(l, "_500-1i_502-1d_4") {
		t.Fatalf("orders label %q is not derived from positions 500-1 .. 502-1 of 4 messages", l)
	}
}

func TestWriteBatchDeleteIntoDuplicateKeyFails(t *testing.T) {
	f := newFakeDoris(t)
	f.models["log.events"] = keysDuplicate
	o := newTestOutput(t, f, "table_identifier: log.events\n")
	err := o.WriteBatch(testCtx(t), service.MessageBatch{
		change(`{"id":1}`, "src", "t", opInsert, 5, 1),
		change(`{"id":1}`, "src", "t", opDelete, 6, 1),
	})
	if err == nil || !strings.Contains(err.Error(), "log.events") || !strings.Contains(err.Error(), "DUPLICATE KEY") {
		t.Fatalf("delete into a DUPLICATE KEY table: %v", err)
	}
	if len(f.beLoads()) != 0 {
		t.Fatal("a batch with a refused delete was loaded")
	}
	// Without deletes a DUP target takes the rows, with no delete sign.
	if err := o.WriteBatch(testCtx(t), service.MessageBatch{change(`{"id":1}`, "src", "t", opInsert, 5, 1)}); err != nil {
		t.Fatal(err)
	}
	l := f.beLoads()[0]
	if l.Header.Get("hidden_columns") != "" || strings.Contains(l.Body, deleteSignColumn) {
		t.Fatalf("DUP load carries a delete sign: %v %s", l.Header, l.Body)
	}
}

func TestReplayedBatchLoadsOnce(t *testing.T) {
	f := newFakeDoris(t)
	f.models["db.t"] = keysDuplicate
	o := newTestOutput(t, f, "table_identifier: db.t\n")
	batch := func() service.MessageBatch {
		return service.MessageBatch{change(`{"id":1}`, "src", "t", opInsert, 7, 1), change(`{"id":2}`, "src", "t", opInsert, 7, 2)}
	}
	for range 2 {
		if err := o.WriteBatch(testCtx(t), batch()); err != nil {
			t.Fatal(err)
		}
	}
	// A fresh output (a restart) derives the same label.
	if err := newTestOutput(t, f, "table_identifier: db.t\n").WriteBatch(testCtx(t), batch()); err != nil {
		t.Fatal(err)
	}
	if rows := f.visibleRows("db.t"); len(rows) != 2 {
		t.Fatalf("replays left %d rows, want 2: %q", len(rows), rows)
	}
	if n := len(f.beLoads()); n != 3 {
		t.Fatalf("%d loads reached the BE, want 3 (two answered Label Already Exists)", n)
	}
}

func TestRetriesReuseTheLabel(t *testing.T) {
	f := newFakeDoris(t)
	o := newTestOutput(t, f, "table_identifier: db.t\ncdc: \"false\"\nrequest_retries: 3\n")
	f.failNext, f.failNextCode = 2, http.StatusServiceUnavailable
	batch := service.MessageBatch{service.NewMessage([]byte(`{"id":1}`))}
	if err := o.WriteBatch(testCtx(t), batch); err != nil {
		t.Fatalf("two 503s then success: %v", err)
	}
	loads := f.beLoads()
	if len(loads) != 3 || loads[0].Header.Get("label") != loads[2].Header.Get("label") || loads[0].Header.Get("label") == "" {
		t.Fatalf("attempts did not share one label: %d loads", len(loads))
	}

	// A failure that outlasts the attempts fails the batch and leaves no
	// label behind: Benthos may never deliver it again, so the next batch
	// with these rows is a new load under a new label.
	f.mu.Lock()
	f.failNext = 3
	f.mu.Unlock()
	batch2 := service.MessageBatch{service.NewMessage([]byte(`{"id":2}`))}
	if err := o.WriteBatch(testCtx(t), batch2); err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("three 503s: %v", err)
	}
	if err := o.WriteBatch(testCtx(t), batch2); err != nil {
		t.Fatal(err)
	}
	loads = f.beLoads()
	if a, b := loads[3].Header.Get("label"), loads[len(loads)-1].Header.Get("label"); a == b {
		t.Fatalf("the next batch took label %q of the failed one", b)
	}
	if rows := f.visibleRows("db.t"); len(rows) != 2 {
		t.Fatalf("rows %q, want both batches' rows", rows)
	}
}

func TestLoadStatuses(t *testing.T) {
	f := newFakeDoris(t)
	o := newTestOutput(t, f, "table_identifier: db.t\ncdc: \"false\"\n")
	msg := func() service.MessageBatch { return service.MessageBatch{service.NewMessage([]byte(`{"id":1}`))} }
	f.loadStatus = []string{"Publish Timeout"}
	if err := o.WriteBatch(testCtx(t), msg()); err != nil {
		t.Fatalf("Publish Timeout: %v", err)
	}
	f.loadStatus = []string{"Fail"}
	err := o.WriteBatch(testCtx(t), msg())
	if err == nil || !strings.Contains(err.Error(), "forced Fail") || !strings.Contains(err.Error(), "label rpconnect_doris_") {
		t.Fatalf("Fail: %v", err)
	}
}

func TestTwoPhaseCommitCommitsAfterAllTargets(t *testing.T) {
	f := newFakeDoris(t)
	f.models["shop_replica.a"] = keysUnique
	f.models["shop_replica.b"] = keysUnique
	o := newTestOutput(t, f, routeYAML+"two_phase_commit: true\nretry_in_order: false\n")
	batch := service.MessageBatch{change(`{"id":1}`, "shop", "a", opInsert, 9, 1), change(`{"id":2}`, "shop", "b", opInsert, 9, 2)}
	if err := o.WriteBatch(testCtx(t), batch); err != nil {
		t.Fatal(err)
	}
	if len(f.visibleRows("shop_replica.a")) != 1 || len(f.visibleRows("shop_replica.b")) != 1 {
		t.Fatal("committed loads are not visible")
	}
	if !slices.Equal(f.commits, []string{"commit 101", "commit 102"}) {
		t.Fatalf("2PC calls %q", f.commits)
	}
	for _, l := range f.beLoads() {
		if l.Header.Get("two_phase_commit") != "true" {
			t.Fatalf("load without two_phase_commit: %v", l.Header)
		}
	}

	// The second target fails: the first, pre-committed, is aborted.
	f.mu.Lock()
	f.commits = nil
	f.models["shop_replica.c"] = keysUnique
	f.failTarget = "shop_replica.c"
	f.mu.Unlock()
	batch = service.MessageBatch{change(`{"id":3}`, "shop", "a", opInsert, 10, 1), change(`{"id":4}`, "shop", "c", opInsert, 10, 2)}
	if err := o.WriteBatch(testCtx(t), batch); err == nil {
		t.Fatal("a failed target did not fail the batch")
	}
	if len(f.commits) != 1 || !strings.HasPrefix(f.commits[0], "abort ") {
		t.Fatalf("2PC calls after a failure: %q", f.commits)
	}
	if rows := f.visibleRows("shop_replica.a"); len(rows) != 1 {
		t.Fatalf("the aborted load became visible: %q", rows)
	}
}

func TestGroupCommitSendsNoLabel(t *testing.T) {
	f := newFakeDoris(t)
	o := newTestOutput(t, f, "table_identifier: db.t\ngroup_commit: async_mode\nretry_in_order: false\n")
	if err := o.WriteBatch(testCtx(t), service.MessageBatch{change(`{"id":1}`, "s", "t", opInsert, 3, 1)}); err == nil {
		// db.t has no model in the fake: CDC needs it. Expect a clear error.
		t.Fatal("missing table model went unnoticed")
	} else if !strings.Contains(err.Error(), "db.t") {
		t.Fatalf("model error does not name the table: %v", err)
	}
	f.models["db.t"] = keysUnique
	if err := o.WriteBatch(testCtx(t), service.MessageBatch{change(`{"id":1}`, "s", "t", opInsert, 3, 1)}); err != nil {
		t.Fatal(err)
	}
	h := f.beLoads()[0].Header
	if h.Get("group_commit") != "async_mode" || h.Get("label") != "" || h.Get("two_phase_commit") != "" {
		t.Fatalf("group commit headers %v", h)
	}
}

// TestChangesRetryInOrder: a failed batch of change events is retried in
// WriteBatch until it loads, instead of being handed back to Benthos.
func TestChangesRetryInOrder(t *testing.T) {
	f := newFakeDoris(t)
	f.models["db.t"] = keysUnique
	o := newTestOutput(t, f, "table_identifier: db.t\nrequest_retries: 1\n")
	o.inOrder = doris.BackoffPolicy{Base: time.Millisecond, Max: 2 * time.Millisecond, NoJitter: true}
	f.loadStatus = []string{"Fail", "Fail", "Fail"}
	if err := o.WriteBatch(testCtx(t), service.MessageBatch{change(`{"id":1}`, "s", "t", opInsert, 3, 1)}); err != nil {
		t.Fatal(err)
	}
	loads := f.beLoads()
	if len(loads) != 4 || len(f.visibleRows("db.t")) != 1 {
		t.Fatalf("%d loads, rows %q: want three failures then the load", len(loads), f.visibleRows("db.t"))
	}
	for _, l := range loads {
		if l.Header.Get("label") != loads[0].Header.Get("label") {
			t.Fatal("in-order retries changed the label")
		}
	}
}

// TestFailsOverToTheNextFE: an FE that refuses connections is skipped.
func TestFailsOverToTheNextFE(t *testing.T) {
	f := newFakeDoris(t)
	dead := httptest.NewServer(http.NotFoundHandler())
	deadAddr := strings.TrimPrefix(dead.URL, "http://")
	dead.Close()
	pc, err := Spec().ParseYAML("fenodes: "+deadAddr+","+f.addr()+"\nusername: root\npassword: pw\ntable_identifier: db.t\ncdc: \"false\"\nrequest_retries: 2\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	conf, err := parseConfig(pc)
	if err != nil {
		t.Fatal(err)
	}
	o, err := newDorisLoad(conf, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close(testCtx(t))
	o.ld.tr.retry.Backoff = doris.BackoffPolicy{Base: time.Millisecond, Max: time.Millisecond}
	o.ld.tr.fes = doris.NewFERotation([]string{deadAddr, f.addr()}) // keep the dead one first
	if err := o.WriteBatch(testCtx(t), service.MessageBatch{service.NewMessage([]byte(`{"id":1}`))}); err != nil {
		t.Fatalf("with one FE down: %v", err)
	}
	if len(f.visibleRows("db.t")) != 1 {
		t.Fatal("the load did not reach the live FE")
	}
}

// TestTwoPhaseCommitFinishesALeftoverPrecommit: a run that died between
// pre-commit and commit leaves its label PRECOMMITTED; the replay of the
// same rows derives the same label and commits that transaction instead of
// loading again.
func TestTwoPhaseCommitFinishesALeftoverPrecommit(t *testing.T) {
	f := newFakeDoris(t)
	f.models["db.t"] = keysUnique
	batch := service.MessageBatch{change(`{"id":1}`, "s", "t", opInsert, 42, 1), change(`{"id":2}`, "s", "t", opInsert, 42, 2)}
	dead := newTestOutput(t, f, "table_identifier: db.t\ntwo_phase_commit: true\n")
	parts, err := splitBatch(dead.conf, batch)
	if err != nil {
		t.Fatal(err)
	}
	parts[0].model = keysUnique
	if err := encodeBody(dead.conf, batch, parts[0]); err != nil {
		t.Fatal(err)
	}
	dead.assignLabel(parts[0])
	if _, err := dead.ld.load(testCtx(t), parts[0]); err != nil { // pre-commit, then "crash"
		t.Fatal(err)
	}
	if rows := f.visibleRows("db.t"); len(rows) != 0 {
		t.Fatalf("pre-committed rows are visible: %q", rows)
	}
	if err := newTestOutput(t, f, "table_identifier: db.t\ntwo_phase_commit: true\n").WriteBatch(testCtx(t), batch); err != nil {
		t.Fatal(err)
	}
	if rows := f.visibleRows("db.t"); len(rows) != 2 {
		t.Fatalf("after the replay %d rows are visible, want 2", len(rows))
	}
	if n := len(f.beLoads()); n != 2 || !strings.HasPrefix(f.commits[len(f.commits)-1], "commit rpconnect_doris_") {
		t.Fatalf("%d loads, 2PC calls %q: want the replay to commit the leftover by label", n, f.commits)
	}
}

// TestRefusingFEEndsTheCallNotTheBatch: an FE's 403 would be every FE's
// answer, so the call tries no other FE; the batch's own retries still
// decide, since a grant may be given meanwhile.
func TestRefusingFEEndsTheCallNotTheBatch(t *testing.T) {
	f := newFakeDoris(t)
	var refused atomic.Int32
	deny := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		refused.Add(1)
		http.Error(w, "Access denied for user 'root'", http.StatusForbidden)
	}))
	defer deny.Close()
	denyAddr := strings.TrimPrefix(deny.URL, "http://")
	o := newTestOutput(t, f, "table_identifier: db.t\ncdc: \"false\"\nrequest_retries: 3\n")
	o.ld.tr.retry.Backoff = doris.BackoffPolicy{Base: time.Millisecond, Max: time.Millisecond}
	o.ld.tr.fes = doris.NewFERotation([]string{denyAddr, f.addr()})
	err := o.WriteBatch(testCtx(t), service.MessageBatch{service.NewMessage([]byte(`{"id":1}`))})
	if err == nil || !strings.Contains(err.Error(), "HTTP 403") {
		t.Fatalf("want the FE's 403, got %v", err)
	}
	if n := refused.Load(); n != 1 || len(f.visibleRows("db.t")) != 0 {
		t.Fatalf("the refusal was tried %d times, and %d rows reached the other FE; want once and none", n, len(f.visibleRows("db.t")))
	}
	if doris.IsPermanent(err) {
		t.Fatalf("the FE loop's mark leaked to the batch: %v", err)
	}
}
