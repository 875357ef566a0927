package checkpoint

import (
	"fmt"
	"time"
)

// The stored layout with window bounds as text. Decode reads a state
// through it so that a malformed bound fails naming its field (a Bound's own
// UnmarshalJSON cannot know where it sits); the text is parsed here, once,
// and a State holds only typed bounds. Tags and fields mirror State, Window
// and Table (TestDecodeEncodeIdentical).
type wireState struct {
	Version    int                   `json:"version"`
	WindowZone string                `json:"window_zone,omitempty"`
	Stream     *wireWindow           `json:"stream,omitempty"`
	Tables     map[string]*wireTable `json:"tables"`
	ClusterID  string                `json:"cluster_id,omitempty"`
	Seq        uint64                `json:"seq"`
	SavedAt    time.Time             `json:"saved_at"`
}

type wireWindow struct {
	Start   string   `json:"start"`
	End     string   `json:"end,omitempty"`
	Last    *Pos     `json:"last,omitempty"`
	Planned []string `json:"planned_ends,omitempty"`
}

type wireTable struct {
	Phase       string      `json:"phase"`
	Start       string      `json:"start,omitempty"`
	DoneTablets Tablets     `json:"snapshot_done_tablets,omitempty"`
	CatchUp     *wireWindow `json:"catchup,omitempty"`
	MaxTablet   int64       `json:"max_tablet,omitempty"`
	// Added with signal_table; absent in older checkpoints.
	Signal       string         `json:"signal,omitempty"`
	SignalFilter string         `json:"signal_filter,omitempty"`
	Pending      *PendingSignal `json:"pending_signal,omitempty"`
	SnapshotTSO  int64          `json:"snapshot_tso,omitempty"`
}

// state parses every bound of w; the rest of the checks are validate's.
func (w *wireState) state() (*State, error) {
	s := &State{Version: w.Version, WindowZone: w.WindowZone, ClusterID: w.ClusterID, Seq: w.Seq, SavedAt: w.SavedAt}
	var err error
	if s.Stream, err = w.Stream.window("stream"); err != nil {
		return nil, err
	}
	if w.Tables != nil {
		s.Tables = make(map[string]*Table, len(w.Tables))
	}
	for name, wt := range w.Tables {
		if wt == nil {
			s.Tables[name] = nil // validate names the entry
			continue
		}
		t := &Table{Phase: wt.Phase, DoneTablets: wt.DoneTablets, MaxTablet: wt.MaxTablet,
			Signal: wt.Signal, SignalFilter: wt.SignalFilter, Pending: wt.Pending, SnapshotTSO: wt.SnapshotTSO}
		if t.Start, err = ParseBound(wt.Start); err != nil {
			return nil, fmt.Errorf("table %s: start must match yyyy-MM-dd HH:mm:ss; got %q", name, wt.Start)
		}
		if t.CatchUp, err = wt.CatchUp.window("table " + name + " catchup"); err != nil {
			return nil, err
		}
		s.Tables[name] = t
	}
	return s, nil
}

// window parses the bounds of w, what naming it in errors. An empty start
// stays zero, which validate refuses.
func (w *wireWindow) window(what string) (*Window, error) {
	if w == nil {
		return nil, nil
	}
	out := &Window{Last: w.Last}
	var err error
	if out.Start, err = ParseBound(w.Start); err != nil {
		return nil, fmt.Errorf("%s start must match yyyy-MM-dd HH:mm:ss; got %q", what, w.Start)
	}
	if out.End, err = ParseBound(w.End); err != nil {
		return nil, fmt.Errorf("%s end must match yyyy-MM-dd HH:mm:ss; got %q", what, w.End)
	}
	if len(w.Planned) > 0 {
		out.Planned = make([]Bound, len(w.Planned))
	}
	prev := w.End
	if prev == "" {
		prev = w.Start
	}
	for i, text := range w.Planned {
		b, err := ParseBound(text)
		if err != nil || b.IsZero() {
			return nil, fmt.Errorf("%s planned_ends must be ascending timestamps after the window; got %q after %q", what, text, prev)
		}
		out.Planned[i], prev = b, text
	}
	return out, nil
}
