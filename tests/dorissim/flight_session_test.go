package dorissim

import (
	"fmt"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
)

// TestFlightResultsOutliveTheNextStatement executes two queries on one
// token before fetching either: like Doris, where a result waits on the BE
// for its ticket, the second statement must not cut the first result short.
func TestFlightResultsOutliveTheNextStatement(t *testing.T) {
	s := startSim(t, Config{})
	ctx := testCtx(t)
	for _, stmt := range []string{
		"CREATE DATABASE db1",
		"CREATE TABLE db1.t (k BIGINT NOT NULL, v VARCHAR(8)) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 4",
	} {
		if err := s.Exec(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	vals := make([]string, 0, 10000)
	for i := range 10000 {
		vals = append(vals, fmt.Sprintf("(%d, 'v')", i))
	}
	if err := s.Exec(ctx, "INSERT INTO db1.t VALUES "+strings.Join(vals, ",")); err != nil {
		t.Fatal(err)
	}
	c, fctx := flightLogin(t, s.FlightAddr(), nil)
	first, err := c.Execute(fctx, "SELECT * FROM db1.t")
	if err != nil {
		t.Fatal(err)
	}
	second, err := c.Execute(fctx, "SELECT k FROM db1.t WHERE k < 10")
	if err != nil {
		t.Fatal(err)
	}
	be, err := flightsql.NewClient(s.BEFlightAddr(), nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	for i, want := range []int64{10000, 10} {
		info := first
		if i == 1 {
			info = second
		}
		r, err := be.DoGet(fctx, info.Endpoint[0].Ticket)
		if err != nil {
			t.Fatalf("DoGet %d: %v", i, err)
		}
		var n int64
		for r.Next() {
			n += r.RecordBatch().NumRows()
		}
		if r.Err() != nil || n != want {
			t.Fatalf("result %d: %d rows (err %v), want %d", i, n, r.Err(), want)
		}
		r.Release()
	}
}
