package security

import (
	"testing"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// TestTableWithoutRowBinlog asks for a binlog phase on a table without a row
// binlog: the error names the table and the property that fixes it.
func TestTableWithoutRowBinlog(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, db, "no_binlog", harness.TableOpts{NoBinlog: true})
	in := inputYAML(srv.HTTPAddr(), db+".no_binlog", "", "scan_mode: latest")
	f := runFailing(t, in, `sec\.no_binlog.*binlog\.enable`)
	f.assertClean(t, map[string]string{})
}

// TestMinDeltaWithoutBeforeImages asks for min_delta on a table that keeps no
// before-images: the error names the table, the increment type and the fix.
func TestMinDeltaWithoutBeforeImages(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, db, "no_before", harness.TableOpts{NoBeforeImages: true})
	in := inputYAML(srv.HTTPAddr(), db+".no_before", "", "scan_mode: latest", "binlog_increment_type: min_delta")
	f := runFailing(t, in, `min_delta.*sec\.no_before.*need_historical_value`)
	f.assertClean(t, map[string]string{})
}
