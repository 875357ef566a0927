package input

import (
	"errors"
	"strings"
	"testing"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/windowplan"
)

// What a table's properties allow, before the FE is asked.
func TestTableCapability(t *testing.T) {
	for _, c := range []struct {
		name  string
		props doris.TableProperties
		mode  string
		says  string
	}{
		{"dup", doris.TableProperties{BinlogEnabled: true, BinlogFormat: "ROW", KeysType: "DUP_KEYS"}, readAsOf, ""},
		{"mow with history", doris.TableProperties{BinlogEnabled: true, BinlogFormat: "ROW", KeysType: "UNIQUE_KEYS", MergeOnWrite: true, NeedHistoricalValue: true}, readAsOf, ""},
		{"mow", doris.TableProperties{BinlogEnabled: true, BinlogFormat: "ROW", KeysType: "UNIQUE_KEYS", MergeOnWrite: true}, readCommitFiltered, `"binlog.need_historical_value" = "true"`},
		{"no binlog", doris.TableProperties{KeysType: "DUP_KEYS"}, readCurrent, `"binlog.enable" = "true"`},
	} {
		mode, reason := tableCapability("d.t", &c.props)
		if mode != c.mode || !strings.Contains(reason, c.says) || (c.says != "") != strings.Contains(reason, "d.t") {
			t.Errorf("%s: %s (%q), want %s naming %q", c.name, mode, reason, c.mode, c.says)
		}
	}
}

// The binlog starts a second before the current one, the snapshot TSO is
// the last before the current second, and the fence is at the current
// second, which covers it.
func TestStartTSO(t *testing.T) {
	now := windowplan.Bound(1_796_535_705_000)
	start, x := startTSO(now)
	if start != now-1000 || x != doris.LastTSOBefore(now.Ms()) || fenceOf(x) != now || snapshotTSOOf(start) != x {
		t.Fatalf("start %s, tso %d, fence %s for now %s", start, x, fenceOf(x), now)
	}
}

// Only Doris's unknown-column answer about the hidden column means an FE
// without time travel; anything else is a failure to retry.
func TestIsUnknownColumn(t *testing.T) {
	if !isUnknownColumn(errors.New("errCode = 2, detailMessage = Unknown column '__DORIS_COMMIT_TSO_COL__' in 'table list' in PROJECT clause")) {
		t.Error("Doris's unknown column answer not recognised")
	}
	for _, msg := range []string{"rpc error: code = Unavailable desc = connection refused", "Unknown column 'x' in 'table list'"} {
		if isUnknownColumn(errors.New(msg)) {
			t.Errorf("%q taken for a missing hidden column", msg)
		}
	}
}
