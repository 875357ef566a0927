package bench

import (
	"context"
	"fmt"
	"testing"
)

// loadConfig copies benchDB.src into benchDB.dst: a doris_binlog snapshot
// into doris_load, both on dorissim. The snapshot rows carry no binlog
// positions, so each load gets a random label: this measures Stream Load
// throughput, not label derivation.
func loadConfig(s *sim, src, dst string) string {
	return inputConfig(s, src, "scan_mode: snapshot", "max_parallel_snapshot_splits: 2") +
		fmt.Sprintf("output:\n  doris_load:\n    fenodes: %s\n    username: root\n    password: \"\"\n    table_identifier: %s.%s\n", s.http, benchDB, dst) +
		"http:\n  enabled: false\n" + quietTail
}

// runLoad times the copy of the mixed table through doris_load and checks
// that every row arrived.
func runLoad(t *testing.T, ctx context.Context, s *sim) (procResult, error) {
	t.Helper()
	if err := s.exec(ctx, mixedDDL("mixed_copy", false)); err != nil {
		return procResult{}, err
	}
	res := runRPConnect(t, ctx, loadConfig(s, "mixed", "mixed_copy"), nil, nil)
	copied, _, err := flightPath(ctx, s, fmt.Sprintf("SELECT * FROM `%s`.`mixed_copy`", benchDB))
	if err != nil {
		return res, err
	}
	if copied.rows != snapshotRows {
		return res, fmt.Errorf("doris_load copied %d of %d rows", copied.rows, snapshotRows)
	}
	return res, nil
}
