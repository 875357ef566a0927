// Package checkpoint holds the doris_binlog input's persisted position: a
// versioned JSON State and a Store that keeps it in a Benthos cache resource.
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
	"time"
)

// Version is the only State layout this package reads and writes.
const Version = 1

// Phases of the input recorded in State.Phase.
const (
	PhaseSnapshot = "snapshot"
	PhaseBinlog   = "binlog"
	PhaseDone     = "done"
)

// State is the persisted position of one doris_binlog input.
type State struct {
	Version     int       `json:"version"` // 1
	Table       string    `json:"table"`   // db.table
	Phase       string    `json:"phase"`   // "snapshot", "binlog", "done"
	StreamStart string    `json:"stream_start,omitempty"`
	DoneTablets []int64   `json:"snapshot_done_tablets,omitempty"`
	WindowStart string    `json:"window_start,omitempty"`
	WindowEnd   string    `json:"window_end,omitempty"`
	Last        *RowPos   `json:"last,omitempty"`
	Seq         uint64    `json:"seq"`
	SavedAt     time.Time `json:"saved_at"`
}

// RowPos is the binlog position of the last delivered row inside a window.
type RowPos struct {
	TSO int64 `json:"tso"`
	LSN int64 `json:"lsn"`
	Op  int8  `json:"op"`
}

// Less orders positions the way Doris orders binlog rows: (TSO, LSN, Op).
func (p RowPos) Less(other RowPos) bool {
	if p.TSO != other.TSO {
		return p.TSO < other.TSO
	}
	if p.LSN != other.LSN {
		return p.LSN < other.LSN
	}
	return p.Op < other.Op
}

// ErrCorrupt is matched (errors.Is) by every error reporting unreadable
// checkpoint bytes.
var ErrCorrupt = errors.New("checkpoint is corrupt")

// CorruptError describes why stored checkpoint bytes were rejected. Key is
// empty when the bytes did not come from a Store.
type CorruptError struct {
	Key    string
	Reason string
}

func (e *CorruptError) Error() string {
	if e.Key == "" {
		return "checkpoint is corrupt: " + e.Reason
	}
	return fmt.Sprintf("checkpoint %q is corrupt: %s", e.Key, e.Reason)
}

// Is makes errors.Is(err, ErrCorrupt) true.
func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt }

// UnsupportedVersionError reports a checkpoint written by another layout.
type UnsupportedVersionError struct {
	Key     string
	Version int
}

func (e *UnsupportedVersionError) Error() string {
	where := "checkpoint"
	if e.Key != "" {
		where = fmt.Sprintf("checkpoint %q", e.Key)
	}
	return fmt.Sprintf("%s has unsupported version %d (this build reads version %d)", where, e.Version, Version)
}

func corrupt(format string, args ...any) error {
	return &CorruptError{Reason: fmt.Sprintf(format, args...)}
}

// Encode validates s and returns its JSON form. A zero Version is filled in
// with the current Version.
func Encode(s *State) ([]byte, error) {
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
	if err := validate(&cp); err != nil {
		return nil, fmt.Errorf("encode checkpoint for %s: invalid state: %w", cp.Table, err)
	}
	b, err := json.Marshal(&cp)
	if err != nil {
		return nil, fmt.Errorf("encode checkpoint for %s: %w", cp.Table, err)
	}
	return b, nil
}

// Decode parses and validates checkpoint bytes. It rejects anything that is
// not exactly one well-formed version-1 State: empty or partial input, unknown
// fields, trailing data (rejected by the version probe) and out-of-range values.
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
	if probe.Version == nil {
		return nil, corrupt("missing version")
	}
	if *probe.Version != Version {
		return nil, &UnsupportedVersionError{Version: *probe.Version}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var s State
	if err := dec.Decode(&s); err != nil {
		return nil, corrupt("invalid JSON: %v", err)
	}
	if err := validate(&s); err != nil {
		return nil, &CorruptError{Reason: err.Error()}
	}
	return &s, nil
}

func validate(s *State) error {
	if s.Table == "" {
		return fmt.Errorf("table is empty")
	}
	switch s.Phase {
	case PhaseSnapshot, PhaseBinlog, PhaseDone:
	default:
		return fmt.Errorf("phase must be one of snapshot, binlog, done; got %q", s.Phase)
	}
	for _, f := range []struct{ name, val string }{
		{"stream_start", s.StreamStart},
		{"window_start", s.WindowStart},
		{"window_end", s.WindowEnd},
	} {
		if f.val != "" && !validTimestamp(f.val) {
			return fmt.Errorf("%s must match yyyy-MM-dd HH:mm:ss; got %q", f.name, f.val)
		}
	}
	if s.WindowEnd != "" && s.WindowStart == "" {
		return fmt.Errorf("window_end is set without window_start")
	}
	// The fixed-width layout makes string order equal time order.
	if s.WindowEnd != "" && s.WindowEnd < s.WindowStart {
		return fmt.Errorf("window_end %q is before window_start %q", s.WindowEnd, s.WindowStart)
	}
	for _, id := range s.DoneTablets {
		if id <= 0 {
			return fmt.Errorf("snapshot_done_tablets holds invalid tablet id %d", id)
		}
	}
	return validateLast(s)
}

func validateLast(s *State) error {
	if s.Last == nil {
		return nil
	}
	if s.WindowStart == "" || s.WindowEnd == "" {
		return fmt.Errorf("last is set without window_start and window_end")
	}
	if s.Last.TSO <= 0 {
		return fmt.Errorf("last.tso must be positive; got %d", s.Last.TSO)
	}
	if s.Last.LSN < 0 {
		return fmt.Errorf("last.lsn must not be negative; got %d", s.Last.LSN)
	}
	if s.Last.Op < 0 || s.Last.Op > 3 {
		return fmt.Errorf("last.op must be 0..3; got %d", s.Last.Op)
	}
	return nil
}

// validTimestamp accepts exactly yyyy-MM-dd HH:mm:ss with a real calendar
// date; time.Parse alone would accept one-digit hours.
func validTimestamp(s string) bool {
	if len(s) != 19 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 4, 7:
			if c != '-' {
				return false
			}
		case 10:
			if c != ' ' {
				return false
			}
		case 13, 16:
			if c != ':' {
				return false
			}
		default:
			if c < '0' || c > '9' {
				return false
			}
		}
	}
	_, err := time.Parse(time.DateTime, s)
	return err == nil
}
