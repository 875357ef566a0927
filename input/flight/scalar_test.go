package flight

import (
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
)

// The count the snapshot uses to spot a small table: exact below the
// limit, the limit above it.
func TestQueryInt64CountsUpToTheLimit(t *testing.T) {
	s, err := dorissim.Start(testCtx(t), dorissim.Config{User: testUser, Password: testPass})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	for _, stmt := range []string{"CREATE DATABASE d", "CREATE TABLE d.t (id BIGINT) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 3",
		"INSERT INTO d.t VALUES (1), (2), (3), (4), (5)"} {
		if err := s.Exec(testCtx(t), stmt); err != nil {
			t.Fatal(err)
		}
	}
	c, err := Dial(testCtx(t), Config{Addr: s.FlightAddr(), Username: testUser, Password: testPass, ConnectTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for limit, want := range map[int64]int64{3: 3, 5: 5, 6: 5} {
		if n, err := QueryInt64(testCtx(t), c, doris.CountUpToSQL("d", "t", limit)); err != nil || n != want {
			t.Errorf("count up to %d: %d, %v; want %d", limit, n, err, want)
		}
	}
}

// Any other shape is an error naming the server and the statement.
func TestQueryInt64RejectsOtherShapes(t *testing.T) {
	c := startCluster(t)
	c.script("SELECT two", scenario{Endpoints: []endpointSpec{{Where: "be", Batches: [][]int64{{1}}}}})
	c.script("SELECT none", scenario{Endpoints: []endpointSpec{{Where: "be", Batches: [][]int64{{}}}}})
	cl := dialCluster(t, c)
	for sql, want := range map[string]string{"SELECT two": "one row of one column", "SELECT none": "no row"} {
		_, err := QueryInt64(testCtx(t), cl, sql)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), sql) || !strings.Contains(err.Error(), cl.Addr()) {
			t.Errorf("%s: %v, want an error saying %q and naming the statement and server", sql, err, want)
		}
	}
}
