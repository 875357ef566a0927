package crash

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestCrashKafkaMarkers is the kafka crash suite with
// include_transaction_markers and kafka_franz's transaction_markers under
// exactly_once: besides every change exactly once, the markers topic holds
// one begin and one commit per transaction, in that order, the commit
// counting the transaction's changes, however the kills cut the
// transactions.
func TestCrashKafkaMarkers(t *testing.T) {
	kafkaCrash(t, kafkaCrashOpts{exactlyOnce: true, markers: true})
}

// markersRouteYAML sends the markers, which have no table, to the topic
// doris.kc.transactions with an empty key (one partition, in order).
const markersRouteYAML = `  processors:
    - switch:
        - check: '["begin", "commit"].contains(@operation)'
          processors:
            - mapping: |
                meta database_schema = "` + kcDB + `"
                meta table = "transactions"
                meta key_columns = []
`

const markersOutputYAML = "    transaction_markers: true\n"

func isMarkerRecord(h map[string]string) bool {
	return h["operation"] == "begin" || h["operation"] == "commit"
}

// checkKafkaMarkers checks the markers topic against the changes want:
// each transaction of want has exactly one begin and, after it, one commit
// whose event_count is its number of changes.
func checkKafkaMarkers(t *testing.T, want map[tableChange]bool, recs []*kgo.Record) {
	t.Helper()
	changes := map[int64]int64{}
	for c := range want {
		changes[c.tso]++
	}
	begins, commits := map[int64]int{}, map[int64]int{}
	for _, r := range recs {
		h := map[string]string{}
		for _, x := range r.Headers {
			h[x.Key] = string(x.Value)
		}
		if !isMarkerRecord(h) {
			continue
		}
		tso, err := strconv.ParseInt(h["tso"], 10, 64)
		if err != nil {
			t.Fatalf("marker %s/%d@%d without a tso: %v", r.Topic, r.Partition, r.Offset, h)
		}
		switch h["operation"] {
		case "begin":
			begins[tso]++
			if commits[tso] > 0 {
				t.Errorf("transaction %d: a begin after its commit (offset %d)", tso, r.Offset)
			}
		case "commit":
			commits[tso]++
			if begins[tso] == 0 {
				t.Errorf("transaction %d: a commit before any begin (offset %d)", tso, r.Offset)
			}
			var body struct {
				EventCount int64 `json:"event_count"`
			}
			if err := json.Unmarshal(r.Value, &body); err != nil || body.EventCount != changes[tso] {
				t.Errorf("transaction %d: commit %s counts %d, the source has %d changes (%v)", tso, r.Value, body.EventCount, changes[tso], err)
			}
		}
	}
	for tso, n := range changes {
		if begins[tso] != 1 || commits[tso] != 1 {
			t.Errorf("transaction %d (%d changes): %d begins and %d commits, want one each", tso, n, begins[tso], commits[tso])
		}
	}
	for tso := range begins {
		if changes[tso] == 0 {
			t.Errorf("markers of transaction %d, which has no change in the source range", tso)
		}
	}
	t.Logf("markers: %d transactions checked", len(changes))
}
