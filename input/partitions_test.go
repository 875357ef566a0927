package input

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
)

// TestDroppedPartitions: a partition that was there at the last look and
// is gone now is reported once, by name; a failed listing keeps the
// baseline, so a drop during an FE outage is still reported afterwards.
func TestDroppedPartitions(t *testing.T) {
	s, ti, _ := simTable(t, "sales", "events", "CREATE DATABASE sales",
		"CREATE TABLE sales.events (dt DATE NOT NULL, id BIGINT NOT NULL) DUPLICATE KEY(dt, id) PARTITION BY RANGE(dt) ("+
			`PARTITION p1 VALUES LESS THAN ("2026-09-14"), PARTITION p2 VALUES LESS THAN ("2026-09-15"), `+
			`PARTITION p3 VALUES LESS THAN ("2026-09-16")) DISTRIBUTED BY HASH(id) BUCKETS 1 `+
			`PROPERTIES ("binlog.enable" = "true", "binlog.format" = "ROW")`)
	ctx := testCtx(t)
	if got := ti.droppedPartitions(ctx); got != nil {
		t.Fatalf("first look reported %v; without a baseline nothing is dropped", got)
	}
	exec := func(stmt string) {
		t.Helper()
		if err := s.Exec(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	exec(`ALTER TABLE sales.events ADD PARTITION p4 VALUES LESS THAN ("2026-09-17")`)
	exec("ALTER TABLE sales.events DROP PARTITION p3")
	exec("ALTER TABLE sales.events DROP PARTITION p1")
	if got := ti.droppedPartitions(ctx); !slices.Equal(got, []string{"p1", "p3"}) {
		t.Fatalf("dropped %v, want [p1 p3] (an added partition is not a drop)", got)
	}
	if got := ti.droppedPartitions(ctx); len(got) != 0 {
		t.Fatalf("dropped %v again, want each drop reported once", got)
	}

	s.SetFaults(dorissim.Faults{Refuse: "http", RefuseFor: time.Minute})
	exec("ALTER TABLE sales.events DROP PARTITION p2")
	if got := ti.droppedPartitions(ctx); len(got) != 0 {
		t.Fatalf("dropped %v while the FE refuses, want nothing", got)
	}
	s.ClearFaults()
	exec(`ALTER TABLE sales.events ADD PARTITION p5 VALUES LESS THAN ("2026-09-18")`)
	exec("ALTER TABLE sales.events DROP PARTITION p4")
	log, sink := captureLogger(t)
	cat := &catalog{m: newMetrics(service.MockResources().Metrics()), log: log}
	cat.warnDroppedPartitions(ctx, ti)
	warns := sink.Lines("WARN", "was dropped")
	if len(warns) != 2 {
		t.Fatalf("warnings %q, want one for p2 and one for p4", warns)
	}
	for i, p := range []string{"p2", "p4"} {
		for _, want := range []string{"Partition " + p + " of table sales.events", "Doris writes no change records", "Delete that partition's range downstream"} {
			if !strings.Contains(warns[i], want) {
				t.Errorf("warning %q does not say %q", warns[i], want)
			}
		}
	}
}
