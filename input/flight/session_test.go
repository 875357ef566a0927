package flight

import (
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

func TestQueryReauthenticatesOnce(t *testing.T) {
	c := startCluster(t)
	c.script("SELECT 2", scenario{Endpoints: []endpointSpec{{Where: "be", Batches: [][]int64{{7}}}}})
	cl := dialCluster(t, c)
	c.mu.Lock()
	c.expireNext = true
	c.mu.Unlock()
	ids, _, _, err := collect(t, cl, "SELECT 2")
	if err != nil || !reflect.DeepEqual(ids, []int64{7}) {
		t.Fatalf("ids=%v err=%v, want [7] after re-authentication", ids, err)
	}
	if hs, ex := c.counts(); hs != 2 || ex != 1 {
		t.Errorf("handshakes=%d executes=%d, want 2 and 1", hs, ex)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if want := []string{"Bearer tok-1", "Bearer tok-2"}; !reflect.DeepEqual(c.feAuth, want) {
		t.Errorf("FE saw %q, want %q", c.feAuth, want)
	}
}

func TestQueryReauthenticatesOnlyOnce(t *testing.T) {
	c := startCluster(t)
	c.script("SELECT 3", scenario{Endpoints: []endpointSpec{{Where: "be", Batches: [][]int64{{1}}}}})
	cl := dialCluster(t, c)
	c.mu.Lock()
	c.expireAll = true
	c.mu.Unlock()
	err := cl.Query(testCtx(t), "SELECT 3", func(arrow.RecordBatch) error { return nil })
	if !IsUnauthenticated(err) {
		t.Fatalf("err = %v, want UNAUTHENTICATED", err)
	}
	if hs, _ := c.counts(); hs != 2 {
		t.Errorf("handshakes = %d, want 2 (dial + one retry)", hs)
	}
}

func TestReauthReplaysSessionStatements(t *testing.T) {
	c := startCluster(t)
	set := "SET exec_mem_limit = 8589934592"
	c.script(set, scenario{Endpoints: []endpointSpec{{Where: "fe"}}})
	c.script("SELECT 9", scenario{Endpoints: []endpointSpec{{Where: "be", Batches: [][]int64{{9}}}}})
	cl := dialCluster(t, c)
	if err := cl.Exec(testCtx(t), set); err != nil {
		t.Fatalf("Exec: %v", err)
	}
	if err := cl.Exec(testCtx(t), "SELECT 9"); err != nil {
		t.Fatalf("Exec: %v", err)
	}
	c.mu.Lock()
	c.expireNext = true
	c.feAuth = nil
	c.mu.Unlock()
	ids, _, _, err := collect(t, cl, "SELECT 9")
	if err != nil || !reflect.DeepEqual(ids, []int64{9}) {
		t.Fatalf("ids=%v err=%v", ids, err)
	}
	// Accepted executes: SET, SELECT, the SET replayed on the new token, the
	// SELECT retried. The SELECT run through Exec is not a session statement
	// and is not replayed.
	if _, ex := c.counts(); ex != 4 {
		t.Errorf("executes = %d, want 4 (SET, SELECT, SET replay, SELECT)", ex)
	}
	if got := c.servedBy(set + "#3#0"); !reflect.DeepEqual(got, []string{"fe"}) {
		t.Errorf("replayed SET served by %v, want the FE", got)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if want := []string{"Bearer tok-1", "Bearer tok-2", "Bearer tok-2"}; !reflect.DeepEqual(c.feAuth, want) {
		t.Errorf("FE saw %q, want %q", c.feAuth, want)
	}
}

func TestIsSessionStatement(t *testing.T) {
	for sql, want := range map[string]bool{
		"SET exec_mem_limit = 1": true, "  set time_zone='UTC'": true, "USE db": true,
		"SELECT 1": false, "": false, "SETTINGS": false,
	} {
		if got := isSessionStatement(sql); got != want {
			t.Errorf("isSessionStatement(%q) = %v, want %v", sql, got, want)
		}
	}
}

func TestExecRemembersDistinctSessionStatementsInOrder(t *testing.T) {
	c := startCluster(t)
	for _, sql := range []string{"SET a = 1", "SET b = 2"} {
		c.script(sql, scenario{Endpoints: []endpointSpec{{Where: "fe"}}})
	}
	cl := dialCluster(t, c)
	for _, sql := range []string{"SET a = 1", "SET b = 2", "SET a = 1", "SET a = 1"} {
		if err := cl.Exec(testCtx(t), sql); err != nil {
			t.Fatal(err)
		}
	}
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if want := []string{"SET b = 2", "SET a = 1"}; !reflect.DeepEqual(cl.session, want) {
		t.Errorf("session = %q, want %q", cl.session, want)
	}
}
