package flight

import (
	"context"
	"errors"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

const (
	testUser = "root"
	testPass = "s3cret-pass"
)

func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func startCluster(t *testing.T) *cluster {
	t.Helper()
	c := newCluster(testUser, testPass)
	c.start(t, nil)
	return c
}

func dialCluster(t *testing.T, c *cluster) *Client {
	t.Helper()
	cl, err := Dial(testCtx(t), Config{Addr: c.feAddr, Username: testUser, Password: testPass, ConnectTimeout: 5 * time.Second})
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	t.Cleanup(func() { _ = cl.Close() })
	return cl
}

// collect runs sql and returns the ids and names of every row, in order,
// plus the number of batches seen.

func collect(t *testing.T, cl *Client, sql string) (ids []int64, names []string, batches int, err error) {
	t.Helper()
	err = cl.Query(testCtx(t), sql, func(rec arrow.RecordBatch) error {
		batches++
		if !rec.Schema().Equal(testSchema) {
			t.Errorf("schema = %v", rec.Schema())
		}
		idCol := rec.Column(0).(*array.Int64)
		nameCol := rec.Column(1).(*array.String)
		for i := 0; i < int(rec.NumRows()); i++ {
			ids = append(ids, idCol.Value(i))
			if nameCol.IsNull(i) {
				names = append(names, "<null>")
			} else {
				names = append(names, nameCol.Value(i))
			}
		}
		return nil
	})
	return ids, names, batches, err
}

func TestDialHandshakeSendsBearer(t *testing.T) {
	c := startCluster(t)
	c.script("SELECT 1", scenario{Endpoints: []endpointSpec{{Where: "be", Batches: [][]int64{{1}}}}})
	cl := dialCluster(t, c)
	if _, _, _, err := collect(t, cl, "SELECT 1"); err != nil {
		t.Fatalf("Query: %v", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if want := []string{"Bearer tok-1"}; !reflect.DeepEqual(c.feAuth, want) {
		t.Fatalf("FE saw authorization %q, want %q", c.feAuth, want)
	}
}

func TestDialWrongPassword(t *testing.T) {
	c := startCluster(t)
	_, err := Dial(testCtx(t), Config{Addr: c.feAddr, Username: testUser, Password: "wrong-password"})
	if err == nil {
		t.Fatal("Dial with a wrong password succeeded")
	}
	msg := err.Error()
	t.Log(msg)
	for _, want := range []string{c.feAddr, "authentication failed for user root"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "wrong-password") {
		t.Errorf("error %q leaks the password", msg)
	}
	if !IsUnauthenticated(err) {
		t.Errorf("IsUnauthenticated(%v) = false", err)
	}
}

func TestDialUnreachableNamesAddress(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	_ = lis.Close()
	_, err = Dial(testCtx(t), Config{Addr: addr, Username: testUser, Password: testPass, ConnectTimeout: 2 * time.Second})
	if err == nil {
		t.Fatal("Dial to a closed port succeeded")
	}
	if !strings.Contains(err.Error(), addr) || strings.Contains(err.Error(), testPass) {
		t.Fatalf("error %q should name %s and not the password", err, addr)
	}
}

func TestDialEmptyAddress(t *testing.T) {
	if _, err := Dial(testCtx(t), Config{}); err == nil {
		t.Fatal("Dial without address succeeded")
	}
}

func TestQueryStreamsFromEndpointLocation(t *testing.T) {
	c := startCluster(t)
	c.script("SELECT * FROM t", scenario{Endpoints: []endpointSpec{
		{Where: "be", Batches: [][]int64{{1, 2}, {3}, {4, 5, 6}}},
	}})
	cl := dialCluster(t, c)
	ids, names, batches, err := collect(t, cl, "SELECT * FROM t")
	if err != nil {
		t.Fatalf("Query: %v", err)
	}
	if want := []int64{1, 2, 3, 4, 5, 6}; !reflect.DeepEqual(ids, want) {
		t.Errorf("ids = %v, want %v", ids, want)
	}
	if want := []string{"<null>", "row-2", "<null>", "row-4", "<null>", "row-6"}; !reflect.DeepEqual(names, want) {
		t.Errorf("names = %v, want %v", names, want)
	}
	if batches != 3 {
		t.Errorf("batches = %d, want 3", batches)
	}
	if got := c.servedBy("SELECT * FROM t#1#0"); !reflect.DeepEqual(got, []string{"be"}) {
		t.Errorf("ticket served by %v, want only the BE", got)
	}
}

func TestQueryReadsAllEndpointsInOrder(t *testing.T) {
	c := startCluster(t)
	c.script("multi", scenario{Endpoints: []endpointSpec{
		{Where: "be", Batches: [][]int64{{1}}},
		{Where: "none", Batches: [][]int64{{2}}},
		{Where: "fe", Batches: [][]int64{{3}}},
		{Where: "arrow-flight-reuse-connection://?", Batches: [][]int64{{4}}},
		{Where: "be", Batches: [][]int64{{5}}},
	}})
	cl := dialCluster(t, c)
	ids, _, _, err := collect(t, cl, "multi")
	if err != nil {
		t.Fatalf("Query: %v", err)
	}
	if want := []int64{1, 2, 3, 4, 5}; !reflect.DeepEqual(ids, want) {
		t.Fatalf("ids = %v, want %v", ids, want)
	}
	wantServers := []string{"be", "fe", "fe", "fe", "be"}
	for i, want := range wantServers {
		tk := "multi#1#" + string(rune('0'+i))
		if got := c.servedBy(tk); !reflect.DeepEqual(got, []string{want}) {
			t.Errorf("endpoint %d served by %v, want [%s]", i, got, want)
		}
	}
	cl.eps.mu.Lock()
	defer cl.eps.mu.Unlock()
	if len(cl.eps.conns) != 1 {
		t.Errorf("cached endpoint connections = %d, want 1 (the BE, reused)", len(cl.eps.conns))
	}
}

func TestQueryEmptyResult(t *testing.T) {
	c := startCluster(t)
	c.script("empty", scenario{Endpoints: []endpointSpec{{Where: "be"}}})
	c.script("no endpoints", scenario{})
	cl := dialCluster(t, c)
	for _, sql := range []string{"empty", "no endpoints"} {
		ids, _, batches, err := collect(t, cl, sql)
		if err != nil || len(ids) != 0 || batches != 0 {
			t.Errorf("%s: ids=%v batches=%d err=%v, want nothing and no error", sql, ids, batches, err)
		}
	}
}

func TestQueryCallbackErrorStops(t *testing.T) {
	c := startCluster(t)
	c.script("stop", scenario{Endpoints: []endpointSpec{
		{Where: "be", Batches: [][]int64{{1}, {2}}},
		{Where: "be", Batches: [][]int64{{3}}},
	}})
	cl := dialCluster(t, c)
	stop := errors.New("stop here")
	calls := 0
	err := cl.Query(testCtx(t), "stop", func(arrow.RecordBatch) error {
		calls++
		return stop
	})
	if !errors.Is(err, stop) || calls != 1 {
		t.Fatalf("err=%v calls=%d, want the callback error after 1 call", err, calls)
	}
	if got := c.servedBy("stop#1#1"); len(got) != 0 {
		t.Errorf("second endpoint fetched by %v after the callback failed", got)
	}
}

func TestQueryDoGetFailureNamesEndpoint(t *testing.T) {
	c := startCluster(t)
	c.script("broken", scenario{Endpoints: []endpointSpec{{Where: "be", FailGet: true}}})
	cl := dialCluster(t, c)
	err := cl.Query(testCtx(t), "broken", func(arrow.RecordBatch) error { return nil })
	if err == nil || !strings.Contains(err.Error(), c.beAddr) || !strings.Contains(err.Error(), "fragment instance cancelled") {
		t.Fatalf("err = %v, want the BE address and the server message", err)
	}
	// A re-run executes afresh: a new ticket, the old one never fetched again.
	_ = cl.Query(testCtx(t), "broken", func(arrow.RecordBatch) error { return nil })
	if got := c.servedBy("broken#1#0"); len(got) != 1 {
		t.Errorf("first ticket served %d times, want 1", len(got))
	}
	if got := c.servedBy("broken#2#0"); len(got) != 1 {
		t.Errorf("second execution's ticket served %d times, want 1", len(got))
	}
}

func TestExecDrains(t *testing.T) {
	c := startCluster(t)
	c.script("SET exec_mem_limit = 8589934592", scenario{Endpoints: []endpointSpec{{Where: "fe", Batches: [][]int64{{0}}}}})
	cl := dialCluster(t, c)
	if err := cl.Exec(testCtx(t), "SET exec_mem_limit = 8589934592"); err != nil {
		t.Fatalf("Exec: %v", err)
	}
	if got := c.servedBy("SET exec_mem_limit = 8589934592#1#0"); !reflect.DeepEqual(got, []string{"fe"}) {
		t.Errorf("SET result served by %v, want the FE", got)
	}
	if err := cl.Exec(testCtx(t), "bogus"); err == nil || !strings.Contains(err.Error(), c.feAddr) {
		t.Errorf("Exec(bogus) = %v, want an error naming the FE", err)
	}
}

func TestCloseIsIdempotentAndRejectsNewEndpoints(t *testing.T) {
	c := startCluster(t)
	c.script("q", scenario{Endpoints: []endpointSpec{{Where: "be", Batches: [][]int64{{1}}}}})
	cl := dialCluster(t, c)
	if _, _, _, err := collect(t, cl, "q"); err != nil {
		t.Fatal(err)
	}
	if err := cl.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := cl.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := cl.eps.conn(target{addr: c.beAddr}); err == nil {
		t.Fatal("endpoint dial after Close succeeded")
	}
	if err := cl.Exec(testCtx(t), "q"); err == nil {
		t.Fatal("Exec after Close succeeded")
	}
}

func TestQueryStreamsBeforeTheResultEnds(t *testing.T) {
	c := startCluster(t)
	gate := make(chan struct{})
	c.script("gated", scenario{Endpoints: []endpointSpec{{Where: "be", Batches: [][]int64{{1}, {2}}, Gate: gate}}})
	cl := dialCluster(t, c)
	var seen []int64
	err := cl.Query(testCtx(t), "gated", func(rec arrow.RecordBatch) error {
		seen = append(seen, rec.Column(0).(*array.Int64).Value(0))
		if len(seen) == 1 {
			close(gate) // the server sends batch 2 only after batch 1 reached us
		}
		return nil
	})
	if err != nil || !reflect.DeepEqual(seen, []int64{1, 2}) {
		t.Fatalf("seen=%v err=%v", seen, err)
	}
}

func TestQueryConcurrentUse(t *testing.T) {
	c := startCluster(t)
	for _, sql := range []string{"a", "b", "c", "d"} {
		c.script(sql, scenario{Endpoints: []endpointSpec{{Where: "be", Batches: [][]int64{{1, 2}, {3}}}}})
	}
	cl := dialCluster(t, c)
	c.mu.Lock()
	c.expireNext = true // one of the goroutines re-authenticates meanwhile
	c.mu.Unlock()
	errs := make(chan error, 4)
	for _, sql := range []string{"a", "b", "c", "d"} {
		go func() {
			n := 0
			err := cl.Query(testCtx(t), sql, func(rec arrow.RecordBatch) error {
				n += int(rec.NumRows())
				return nil
			})
			if err == nil && n != 3 {
				err = errors.New(sql + ": wrong row count")
			}
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

func TestQueryNilCallbackDrains(t *testing.T) {
	c := startCluster(t)
	c.script("n", scenario{Endpoints: []endpointSpec{{Where: "be", Batches: [][]int64{{1}}}}})
	cl := dialCluster(t, c)
	if err := cl.Query(testCtx(t), "n", nil); err != nil {
		t.Fatalf("Query with nil fn: %v", err)
	}
	if got := c.servedBy("n#1#0"); len(got) != 1 {
		t.Errorf("ticket served %d times, want 1", len(got))
	}
}
