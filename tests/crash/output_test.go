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
	for key, dst := range map[string]*string{"operation": &ev.Operation, "database_schema": &ev.Database, "table": &ev.Table} {
		s, ok := ol.Meta[key].(string)
		if !ok {
			return ev, fmt.Errorf("metadata %s is %T, want a string: %q", key, ol.Meta[key], line)
		}
		*dst = s
	}
	ev.Phase = "snapshot"
	if _, ok := ol.Meta["tso"]; !ok {
		return ev, nil
	}
	ev.Phase, ev.Op = "binlog", opCode[ev.Operation]
	for key, dst := range map[string]*string{"doris_window_start": &ev.WindowStart, "doris_window_end": &ev.WindowEnd} {
		s, ok := ol.Meta[key].(string)
		if !ok {
			return ev, fmt.Errorf("metadata %s is %T, want a string: %q", key, ol.Meta[key], line)
		}
		*dst = s
	}
	// The input sets these as int64 metadata, so the mapping writes JSON
	// integers; a string here would mean the types were lost.
	for key, dst := range map[string]*int64{"tso": &ev.TSO, "lsn": &ev.LSN, "commit_ts_ms": &ev.CommitTSMs} {
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

// byTable splits events by their table metadata, keeping their order.
func byTable(evs []harness.Event) map[string][]harness.Event {
	out := map[string][]harness.Event{}
	for _, ev := range evs {
		out[ev.Table] = append(out[ev.Table], ev)
	}
	return out
}
