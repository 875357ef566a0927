package offsetcmd

import (
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// Report is what `offsets show` prints, and the state before and after a
// change. Times are UTC; a position's time is the physical part of its TSO
// (Doris's commit time of that transaction).
type Report struct {
	Cache string `json:"cache"`
	Key   string `json:"key"`
	// FromBackup: the primary copy was older or unreadable and the
	// `<key>.bak` copy is the one shown (and changed).
	FromBackup bool      `json:"from_backup,omitempty"`
	Seq        uint64    `json:"seq"`
	SavedAt    time.Time `json:"saved_at"`
	// SavedAgoSeconds is how long ago an input last saved, by this
	// machine's clock; null for a state that records no save time.
	SavedAgoSeconds *float64      `json:"saved_ago_seconds"`
	Chain           *ChainReport  `json:"chain,omitempty"`
	Doris           DorisReport   `json:"doris"`
	Tables          []TableReport `json:"tables"`
}

// ChainReport is the window chain every streaming table shares.
type ChainReport struct {
	WindowStart string    `json:"window_start"`
	WindowEnd   string    `json:"window_end,omitempty"`
	Last        *Position `json:"last,omitempty"`
	PlannedEnds []string  `json:"planned_ends,omitempty"`
}

// DorisReport says whether the facts that need Doris were read.
type DorisReport struct {
	Reachable bool `json:"reachable"`
	// Error is why Doris could not be asked; ages are then measured with
	// this machine's clock and TTLs are unknown.
	Error string    `json:"error,omitempty"`
	Now   time.Time `json:"now"`
}

// Position is where a table resumes: TSO is the first TSO whose changes
// are still (partly) to be delivered. With LSN set, the rows of that TSO up
// to the last delivered row (of Table, at LSN) were delivered.
type Position struct {
	TSO int64 `json:"tso"`
	// Time is the TSO's physical time, yyyy-MM-dd HH:mm:ss.SSS UTC.
	Time string `json:"time"`
	// Table and LSN are the last delivered row's, when the position is one
	// (a window's start is not).
	Table string `json:"table,omitempty"`
	LSN   *int64 `json:"lsn,omitempty"`
}

// TableReport is one table of the checkpoint.
type TableReport struct {
	Table string `json:"table"`
	Phase string `json:"phase"`
	// WindowStart and WindowEnd are the binlog window it reads next: the
	// chain's in phase binlog, its own in phase catchup, the start of its
	// binlog after the snapshot in phase snapshot.
	WindowStart string    `json:"window_start,omitempty"`
	WindowEnd   string    `json:"window_end,omitempty"`
	Position    *Position `json:"position,omitempty"`
	// SnapshotDoneTablets counts the tablets its snapshot has delivered.
	SnapshotDoneTablets int   `json:"snapshot_done_tablets"`
	MaxTablet           int64 `json:"max_tablet,omitempty"`
	// AgeSeconds is how old the position is against Doris's time (or this
	// machine's when Doris is unreachable).
	AgeSeconds *float64 `json:"age_seconds,omitempty"`
	// TTLSeconds is the table's binlog.ttl_seconds; HeadroomSeconds is
	// TTL minus age: how long until the oldest change still to read expires.
	TTLSeconds      *int64   `json:"ttl_seconds,omitempty"`
	HeadroomSeconds *float64 `json:"headroom_seconds,omitempty"`
	Expired         bool     `json:"expired,omitempty"`
	// Error is why the table's TTL could not be read.
	Error string `json:"error,omitempty"`
	// PendingSignal is a signal_table row read in the chain's current
	// window, applied to the table when that window ends.
	PendingSignal *SignalReport `json:"pending_signal,omitempty"`
	// Signal is the id of the signal whose snapshot the table is taking,
	// and SignalFilter the condition that snapshot reads rows by.
	Signal       string `json:"signal,omitempty"`
	SignalFilter string `json:"signal_filter,omitempty"`
}

// SignalReport is a signal noted on a table and not applied yet.
type SignalReport struct {
	ID     string `json:"id"`
	Kind   string `json:"kind"`
	Filter string `json:"filter,omitempty"`
}

// facts are what Doris told: its time and each table's binlog TTL.
type facts struct {
	doris DorisReport
	ttl   map[string]int64
	errs  map[string]string
}

// buildReport describes st under the facts.
func buildReport(t *Target, st *checkpoint.State, fromBackup bool, f *facts) *Report {
	r := &Report{Cache: t.Cache, Key: t.Key, FromBackup: fromBackup, Seq: st.Seq, SavedAt: st.SavedAt, Doris: f.doris, Tables: []TableReport{}}
	if !st.SavedAt.IsZero() {
		ago := time.Since(st.SavedAt).Seconds()
		r.SavedAgoSeconds = &ago
	}
	if w := st.Stream; w != nil {
		r.Chain = &ChainReport{WindowStart: w.Start.String(), WindowEnd: w.End.String(), Last: lastPosition(w.Last)}
		for _, e := range w.Planned {
			r.Chain.PlannedEnds = append(r.Chain.PlannedEnds, e.String())
		}
	}
	for _, name := range st.TableNames() {
		r.Tables = append(r.Tables, tableReport(st, name, f))
	}
	return r
}

func tableReport(st *checkpoint.State, name string, f *facts) TableReport {
	t := st.Tables[name]
	tr := TableReport{Table: name, Phase: t.Phase, SnapshotDoneTablets: len(t.DoneTablets), MaxTablet: t.MaxTablet,
		Signal: t.Signal, SignalFilter: t.SignalFilter}
	if p := t.Pending; p != nil {
		tr.PendingSignal = &SignalReport{ID: p.ID, Kind: p.Kind, Filter: p.Filter}
	}
	var w *checkpoint.Window
	switch t.Phase {
	case checkpoint.PhaseBinlog:
		w = st.Stream
	case checkpoint.PhaseCatchUp:
		w = t.CatchUp
	case checkpoint.PhaseSnapshot:
		if start := st.BinlogStart(name); !start.IsZero() {
			w = &checkpoint.Window{Start: start}
		}
	}
	if w == nil {
		return tr
	}
	tr.WindowStart, tr.WindowEnd = w.Start.String(), w.End.String()
	tr.Position = windowPosition(w, name)
	age := float64(f.doris.Now.UnixMilli()-doris.PhysicalMs(tr.Position.TSO)) / 1000
	tr.AgeSeconds = &age
	if ttl, ok := f.ttl[name]; ok {
		tr.TTLSeconds = &ttl
		if ttl > 0 {
			headroom := float64(ttl) - age
			tr.HeadroomSeconds, tr.Expired = &headroom, headroom <= 0
		}
	}
	tr.Error = f.errs[name]
	return tr
}

// windowPosition is the position of table in window w: its last delivered
// row, or the first TSO of the window's start second when none was.
func windowPosition(w *checkpoint.Window, table string) *Position {
	if w.Last == nil {
		tso := doris.Compose(w.Start.Ms(), 0)
		return &Position{TSO: tso, Time: formatTSO(tso)}
	}
	p := lastPosition(w.Last)
	if w.Last.Table != table {
		p.Table, p.LSN = "", nil // another table's row: its LSN says nothing of this one
	}
	return p
}

func lastPosition(last *checkpoint.Pos) *Position {
	if last == nil {
		return nil
	}
	if *last == checkpoint.LastBefore(last.Table, last.TSO+1) {
		// Set by `offsets set --tso`: no row, the table resumes at the TSO.
		return &Position{TSO: last.TSO + 1, Time: formatTSO(last.TSO + 1)}
	}
	lsn := last.LSN
	return &Position{TSO: last.TSO, Time: formatTSO(last.TSO), Table: last.Table, LSN: &lsn}
}

// tsoTimeLayout is a TSO's time, to the millisecond it holds.
const tsoTimeLayout = "2006-01-02 15:04:05.000"

func formatTSO(tso int64) string {
	return time.UnixMilli(doris.PhysicalMs(tso)).UTC().Format(tsoTimeLayout)
}
