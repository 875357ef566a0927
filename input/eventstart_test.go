package input

import (
	"context"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
)

// The tables one discovery finds in initial mode share one binlog start:
// they catch up together, and the discovery does not wait a Doris second
// for each of them before the shared windows go on.
func TestTablesOfOneDiscoveryShareTheirBinlogStart(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	e := newSimEnv(t, dorissim.Config{}, &Config{ScanMode: "initial", Selection: includeSelection(`^d\.`),
		DiscoveryInterval: time.Second, PollInterval: time.Second},
		"CREATE DATABASE d", "CREATE TABLE d.a"+binlogDDL, "INSERT INTO d.a VALUES (1)")
	e.conf.CheckpointCache, e.conf.CheckpointKey = cpCache, "k"
	r := startLoggedReader(t, ctx, e)
	defer stopReader(t, r)
	waitLogged(t, ctx, e, "INFO", "Binlog phase: reading", 1)

	var found []string
	var stmts []string
	for i := range 6 {
		key := fmt.Sprintf("d.n%d", i)
		found = append(found, key)
		stmts = append(stmts, "CREATE TABLE "+key+binlogDDL, "INSERT INTO "+key+" VALUES (1)")
	}
	e.exec(t, stmts...)
	waitCommitted(t, ctx, r, func(st *checkpoint.State) bool { return inBinlog(st, found) })

	from := regexp.MustCompile(`Table (d\.n\d) joins the stream: .*its binlog from (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)`)
	starts := map[string]string{}
	for _, l := range e.lines.Lines("DEBUG", "joins the stream") {
		if m := from.FindStringSubmatch(l); m != nil {
			starts[m[1]] = m[2]
		}
	}
	if len(starts) != len(found) {
		t.Fatalf("binlog starts of %d of the %d tables found: %v", len(starts), len(found), starts)
	}
	// A discovery may split the six over two listings; each listing's
	// tables share one start.
	distinct := map[string]bool{}
	for _, s := range starts {
		distinct[s] = true
	}
	if len(distinct) > 2 {
		t.Fatalf("the tables found got %d binlog starts, want one per discovery: %v", len(distinct), starts)
	}
}
