package checkpoint

import (
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

// LegacyVersion is the layout of the single-table input: one table, its
// phase, and its own window.
const LegacyVersion = 1

// legacyState is the version 1 layout, kept only to read it.
type legacyState struct {
	Version     int     `json:"version"`
	Table       string  `json:"table"`
	Phase       string  `json:"phase"`
	StreamStart string  `json:"stream_start,omitempty"`
	DoneTablets []int64 `json:"snapshot_done_tablets,omitempty"`
	WindowStart string  `json:"window_start,omitempty"`
	WindowEnd   string  `json:"window_end,omitempty"`
	Last        *struct {
		TSO int64 `json:"tso"`
		LSN int64 `json:"lsn"`
		Op  int8  `json:"op"`
	} `json:"last,omitempty"`
	Seq     uint64    `json:"seq"`
	SavedAt time.Time `json:"saved_at"`
}

// decodeLegacy converts a version 1 state: its table becomes the only
// entry, and its window (or, in a snapshot of initial mode, its stream
// start) becomes the shared chain, so the input goes on without a new
// snapshot and without re-reading delivered rows.
func decodeLegacy(b []byte) (*State, error) {
	var l legacyState
	err := strictUnmarshal(b, &l)
	if err != nil {
		return nil, err
	}
	if _, _, err := doris.ParseTableIdentifier(l.Table); err != nil {
		return nil, corrupt("version 1 table %q is not db.table", l.Table)
	}
	s := &State{Version: Version, Tables: map[string]*Table{}, Seq: l.Seq, SavedAt: l.SavedAt, FromVersion: LegacyVersion}
	t := &Table{Phase: l.Phase}
	switch l.Phase {
	case PhaseSnapshot:
		t.DoneTablets = l.DoneTablets
		if l.StreamStart != "" {
			w := &wireWindow{Start: l.StreamStart}
			if s.Stream, err = w.window("stream"); err != nil {
				return nil, &CorruptError{Reason: "version 1: " + err.Error()}
			}
		}
	case PhaseBinlog:
		w := &wireWindow{Start: l.WindowStart, End: l.WindowEnd}
		if s.Stream, err = w.window("stream"); err != nil {
			return nil, &CorruptError{Reason: "version 1: " + err.Error()}
		}
		if l.Last != nil {
			s.Stream.Last = &Pos{TSO: l.Last.TSO, Table: l.Table, LSN: l.Last.LSN, Op: l.Last.Op}
		}
	case PhaseDone:
	default:
		return nil, corrupt("version 1 phase must be one of snapshot, binlog, done; got %q", l.Phase)
	}
	s.Tables[l.Table] = t
	if err := validate(s); err != nil {
		return nil, &CorruptError{Reason: "version 1: " + err.Error()}
	}
	return s, nil
}
