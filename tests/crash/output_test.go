package crash

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strconv"

	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// outputLine is one line of the file output: the message's metadata and its
// row, as the pipeline mapping writes them.
type outputLine struct {
	Meta map[string]any `json:"meta"`
	Row  map[string]any `json:"row"`
}

// readOutput parses a run's output file. A killed run may have written half
// a line last; that line was never acked, so the input sends it again and it
// is dropped here (torn reports whether that happened). Any other line that
// does not parse is an error.
func readOutput(path string, killed bool) (evs []harness.Event, torn bool, err error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("reading output %s: %w", path, err)
	}
	lines := bytes.Split(b, []byte{'\n'})
	if last := lines[len(lines)-1]; len(last) > 0 {
		if !killed {
			return nil, false, fmt.Errorf("output %s ends with an unterminated line although the run was not killed: %q", path, last)
		}
		torn = true
	}
	lines = lines[:len(lines)-1]
	for i, line := range lines {
		ev, err := parseLine(line)
		if err != nil {
			return nil, torn, fmt.Errorf("output %s line %d: %w", path, i+1, err)
		}
		evs = append(evs, ev)
	}
	return evs, torn, nil
}

// Metadata keys the suite reads, all here so that a rename touches one
// place.
const (
	metaOperation   = "operation"
	metaDatabase    = "database_schema"
	metaTable       = "table"
	metaWindowStart = "doris_window_start" // with debug_metadata
	metaWindowEnd   = "doris_window_end"
	metaTSO         = "tso"
	metaLSN         = "lsn"
	metaCommitTS    = "commit_ts_ms"
)

func parseLine(line []byte) (harness.Event, error) {
	var ol outputLine
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if err := dec.Decode(&ol); err != nil {
		return harness.Event{}, fmt.Errorf("not JSON: %w: %q", err, line)
	}
	if ol.Row == nil || ol.Meta == nil {
		return harness.Event{}, fmt.Errorf("lacks meta or row: %q", line)
	}
	ev := harness.Event{Row: ol.Row}
	for key, dst := range map[string]*string{metaOperation: &ev.Operation, metaDatabase: &ev.Database, metaTable: &ev.Table} {
		s, ok := ol.Meta[key].(string)
		if !ok {
			return ev, fmt.Errorf("metadata %s is %T, want a string: %q", key, ol.Meta[key], line)
		}
		*dst = s
	}
	ev.Phase = "snapshot"
	if _, ok := ol.Meta[metaTSO]; !ok {
		return ev, nil
	}
	ev.Phase, ev.Op = "binlog", opCode[ev.Operation]
	for key, dst := range map[string]*string{metaWindowStart: &ev.WindowStart, metaWindowEnd: &ev.WindowEnd} {
		s, ok := ol.Meta[key].(string)
		if !ok {
			return ev, fmt.Errorf("metadata %s is %T, want a string: %q", key, ol.Meta[key], line)
		}
		*dst = s
	}
	// The input sets these as int64 metadata, so the mapping writes JSON
	// integers; a string here would mean the types were lost.
	for key, dst := range map[string]*int64{metaTSO: &ev.TSO, metaLSN: &ev.LSN, metaCommitTS: &ev.CommitTSMs} {
		n, ok := ol.Meta[key].(json.Number)
		if !ok {
			return ev, fmt.Errorf("metadata %s is %T, want a JSON integer: %q", key, ol.Meta[key], line)
		}
		v, err := strconv.ParseInt(n.String(), 10, 64)
		if err != nil {
			return ev, fmt.Errorf("metadata %s: %w", key, err)
		}
		*dst = v
	}
	return ev, nil
}

// opCode is the Doris op code of each binlog operation.
var opCode = map[string]int64{"insert": 0, "delete": 1, "update_before": 2, "update_after": 3}

// byTable splits events by their table, keeping their order; events of
// other databases are an error of the selection and land under their
// db.table name, which no check expects.
func byTable(evs []harness.Event) map[string][]harness.Event {
	out := map[string][]harness.Event{}
	for _, ev := range evs {
		k := ev.Table
		if ev.Database != db {
			k = ev.Database + "." + ev.Table
		}
		out[k] = append(out[k], ev)
	}
	return out
}
