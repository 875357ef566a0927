// Package checkpoint holds the doris_binlog input's persisted position: a
// versioned JSON State and a Store that keeps it in a Benthos cache resource.
//
// One State describes a whole input: the phase and progress of every table it
// follows, the window chain that all streaming tables share, and the last
// delivered row of that chain. Version 1, written by the single-table input,
// is read and carried over (see legacy.go); version 2, which wrote done
// tablets as an array of ids, is read too (see Tablets). Window bounds are UTC wall
// times (window_zone); older states hold the FE's wall times and are
// converted once by the input (see zone.go).
//
// The Store survives torn writes: the `file` cache truncates a file before
// writing it, so a process killed mid-write can leave an empty or partial
// value. Every Save therefore writes `<key>.bak` first and `<key>` second, and
// Load picks the valid copy with the highest sequence number.
//
// Cache caveat: values are written without an explicit TTL, so the cache's
// default applies. The `memory` cache expires entries 5 minutes after their
// last update unless `compaction_interval: ""` is set, which silently loses the
// position; it is also not durable across restarts. Use the `file` cache (or
// another persistent cache) for real pipelines.
package checkpoint

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"
)

// Version is the State layout this package writes: version 2 with the done
// tablets as runs (see Tablets). Decode also reads versionArrayTablets and
// LegacyVersion.
const Version = 3

// versionArrayTablets is the layout that stored done tablets as an array of
// ids; otherwise it is the current one.
const versionArrayTablets = 2

// Phases of a table recorded in Table.Phase.
const (
	// PhaseSnapshot: the table's content is being read; DoneTablets
	// holds the tablets already delivered.
	PhaseSnapshot = "snapshot"
	// PhaseCatchUp: the snapshot is done and the table reads its own
	// binlog from Start until it reaches the shared window chain.
	PhaseCatchUp = "catchup"
	// PhaseBinlog: the table is read in every window of the shared chain.
	PhaseBinlog = "binlog"
	// PhaseDone: a snapshot-only table that has been read completely.
	PhaseDone = "done"
)

// State is the persisted position of one doris_binlog input.
type State struct {
	Version int `json:"version"`
	// WindowZone is the zone of every window bound and table start:
	// WindowZoneUTC, required in what this version writes. A state read
	// without it holds FE-zone wall times (see InFEZone).
	WindowZone string `json:"window_zone,omitempty"`
	// Stream is the window chain shared by every table in PhaseBinlog;
	// nil in snapshot-only inputs.
	Stream *Window `json:"stream,omitempty"`
	// Tables maps `db.table` to that table's phase and progress.
	Tables map[string]*Table `json:"tables"`
	// ClusterID is the Doris cluster the position was taken on (SHOW
	// FRONTENDS ClusterId): a TSO means nothing on another cluster. Empty
	// in states written before it was recorded; input/clusterguard.go checks it.
	ClusterID string    `json:"cluster_id,omitempty"`
	Seq       uint64    `json:"seq"`
	SavedAt   time.Time `json:"saved_at"`
	// FromVersion is the layout the state was read from when it was not
	// the current one, so that the input can say it carried it over.
	FromVersion int `json:"-"`
}

// Window is a binlog window [Start, End) and the last row of it delivered.
// End is zero until the window is chosen; Last is nil until a row of it was
// delivered. A window that finished is replaced by {Start: its End}.
type Window struct {
	Start Bound `json:"start"`
	End   Bound `json:"end,omitzero"`
	Last  *Pos  `json:"last,omitempty"`
	// Planned are the ends of the windows after this one that were chosen
	// (and may have had rows delivered) before this position was saved.
	// A restart reads the same windows again, so that it emits the same
	// batches as before, which an output can deduplicate by label.
	Planned []Bound `json:"planned_ends,omitempty"`
}

// Table is one table's phase and progress.
type Table struct {
	Phase string `json:"phase"`
	// Start is where the table's own binlog begins when it is not the
	// shared chain's start: a table that joined while the chain was
	// running catches up from here. Zero means "with the chain".
	Start Bound `json:"start,omitzero"`
	// DoneTablets are the snapshot tablets already delivered.
	DoneTablets Tablets `json:"snapshot_done_tablets,omitempty"`
	// CatchUp is the table's own window while in PhaseCatchUp.
	CatchUp *Window `json:"catchup,omitempty"`
	// MaxTablet is the highest tablet id seen; a table whose tablets are
	// all newer was dropped and created again (Doris ids only grow).
	MaxTablet int64 `json:"max_tablet,omitempty"`
	// Signal is the id of the signal_table row whose snapshot the table
	// takes, while in PhaseSnapshot; empty for the snapshot of its start.
	Signal string `json:"signal,omitempty"`
	// SignalFilter is the condition that snapshot reads rows by, if any.
	SignalFilter string `json:"signal_filter,omitempty"`
	// Pending is a signal for the table read in the chain's current
	// window: it takes effect when the window ends (ApplySignals).
	Pending *PendingSignal `json:"pending_signal,omitempty"`
	// SnapshotTSO is the commit TSO the table's snapshot is read as of
	// (snapshot_consistency, input/snapshotasof.go): every split reads the
	// commits up to it, and the table's binlog leaves out its changes at or
	// before it. It is chosen with the table's binlog start, so a restarted
	// split reads as of the same TSO, and kept until the binlog has read
	// past it. Zero in a checkpoint written before it existed: such a
	// table's snapshot is read as it was then, at the current version.
	SnapshotTSO int64 `json:"snapshot_tso,omitempty"`
}

// PendingSignal is a signal_table row read but not applied yet.
type PendingSignal struct {
	ID     string `json:"id"`
	Kind   string `json:"kind"`
	Filter string `json:"filter,omitempty"`
}

// New returns an empty current-version State.
func New() *State {
	return &State{Version: Version, WindowZone: WindowZoneUTC, Tables: map[string]*Table{}}
}

// Clone returns a copy that shares nothing mutable with s. Slices are
// treated as immutable once stored (callers append to fresh copies), so
// only the maps and structs are copied.
func (s *State) Clone() *State {
	if s == nil {
		return nil
	}
	cp := *s
	cp.Stream = s.Stream.Clone()
	cp.Tables = make(map[string]*Table, len(s.Tables))
	for name, t := range s.Tables {
		tc := *t
		tc.CatchUp = t.CatchUp.Clone()
		if t.Pending != nil {
			p := *t.Pending
			tc.Pending = &p
		}
		cp.Tables[name] = &tc
	}
	return &cp
}

// Clone returns a copy of w that shares nothing mutable.
func (w *Window) Clone() *Window {
	if w == nil {
		return nil
	}
	cp := *w
	if w.Last != nil {
		last := *w.Last
		cp.Last = &last
	}
	cp.Planned = append([]Bound(nil), w.Planned...) // nil when empty
	return &cp
}

// TableNames returns the tables in name order.
func (s *State) TableNames() []string {
	names := make([]string, 0, len(s.Tables))
	for n := range s.Tables {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Encode validates s and returns its JSON form. A zero Version is filled in
// with the current Version.
func Encode(s *State) ([]byte, error) {
	cp, err := checkEncodable(s)
	if err != nil {
		return nil, err
	}
	if err := validate(cp); err != nil {
		return nil, fmt.Errorf("encode checkpoint: invalid state: %w", err)
	}
	if err := checkZone(cp); err != nil {
		return nil, err
	}
	b, err := json.Marshal(cp)
	if err != nil {
		return nil, fmt.Errorf("encode checkpoint: %w", err)
	}
	return b, nil
}

// checkEncodable returns a copy of s with its Version filled in, or why
// no state of that version can be written.
func checkEncodable(s *State) (*State, error) {
	if s == nil {
		return nil, errors.New("encode checkpoint: state is nil")
	}
	cp := *s
	if cp.Version == 0 {
		cp.Version = Version
	}
	if cp.Version != Version {
		return nil, fmt.Errorf("encode checkpoint: %w", &UnsupportedVersionError{Version: cp.Version})
	}
	return &cp, nil
}

// checkZone refuses to write FE-zone wall times: what this version writes
// is in UTC.
func checkZone(s *State) error {
	if s.WindowZone != WindowZoneUTC {
		return fmt.Errorf("encode checkpoint: window_zone must be %s, got %q (convert FE-zone wall times first)", WindowZoneUTC, s.WindowZone)
	}
	return nil
}

// Decode parses and validates checkpoint bytes. It rejects anything that is
// not exactly one well-formed State: empty or partial input, unknown fields,
// trailing data and out-of-range values. Version 1 states are converted.
func Decode(b []byte) (*State, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, corrupt("empty value")
	}
	var probe struct {
		Version *int `json:"version"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return nil, corrupt("invalid JSON: %v", err)
	}
	switch {
	case probe.Version == nil:
		return nil, corrupt("missing version")
	case *probe.Version == LegacyVersion:
		return decodeLegacy(b)
	case *probe.Version != Version && *probe.Version != versionArrayTablets:
		return nil, &UnsupportedVersionError{Version: *probe.Version}
	}
	var w wireState
	if err := strictUnmarshal(b, &w); err != nil {
		return nil, err
	}
	if w.WindowZone != "" && w.WindowZone != WindowZoneUTC {
		return nil, corrupt("window_zone must be %s or absent; got %q", WindowZoneUTC, w.WindowZone)
	}
	s, err := w.state()
	if err != nil {
		return nil, &CorruptError{Reason: err.Error()}
	}
	if err := validate(s); err != nil {
		return nil, &CorruptError{Reason: err.Error()}
	}
	s.Version = Version // the layouts differ only in how tablets are written
	return s, nil
}

func strictUnmarshal(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return corrupt("invalid JSON: %v", err)
	}
	if dec.More() {
		return corrupt("trailing data after the checkpoint")
	}
	return nil
}
