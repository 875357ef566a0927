package offsetcmd

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// EditOptions apply to every command that changes the checkpoint.
type EditOptions struct {
	// DryRun prints what would change and writes nothing.
	DryRun bool
	// Force writes even though an input seems to run on the checkpoint.
	Force bool
	// Now is this machine's time; zero means time.Now.
	Now time.Time
}

// Edit is the outcome of a change: the state before and after, and
// whether it was written.
type Edit struct {
	Before  *Report  `json:"before"`
	After   *Report  `json:"after"`
	DryRun  bool     `json:"dry_run"`
	Written bool     `json:"written"`
	Notes   []string `json:"notes,omitempty"`
}

// SetPosition is where `offsets set` moves a table: a whole second, or a TSO.
type SetPosition struct {
	// Timestamp is yyyy-MM-dd HH:mm:ss in UTC: the table streams the
	// changes committed from that second on.
	Timestamp string
	// TSO: the table streams the changes with this TSO and later.
	TSO int64
}

// runningFactor times binlog_poll_interval is how recently a running
// input has saved: it saves after every window, one per poll.
const runningFactor = 3

// minRunningWindow keeps the guard meaningful with a short poll interval.
const minRunningWindow = 10 * time.Second

// RunningWindow is how recently a save means an input runs on the
// checkpoint: 3 poll intervals, at least 10 s.
func (t *Target) RunningWindow() time.Duration {
	return max(runningFactor*t.PollInterval, minRunningWindow)
}

// Set makes table stream from pos at the next start; the other tables
// keep their positions.
func (t *Target) Set(ctx context.Context, table string, pos SetPosition, opts EditOptions) (*Edit, error) {
	return t.edit(ctx, opts, func(st *checkpoint.State) ([]string, error) {
		key, err := tableKey(st, table)
		if err != nil {
			return nil, err
		}
		dropped := droppedSignals(st, key)
		notes, err := move(st, key, pos)
		return append(dropped, notes...), err
	})
}

// move applies pos to table key of st.
func move(st *checkpoint.State, key string, pos SetPosition) ([]string, error) {
	if pos.Timestamp != "" {
		from, err := checkpoint.ParseBound(pos.Timestamp)
		if err != nil {
			return nil, fmt.Errorf("--timestamp: must be yyyy-MM-dd HH:mm:ss (UTC); got %q", pos.Timestamp)
		}
		return nil, st.MoveTable(key, from, nil)
	}
	if pos.TSO <= 0 {
		return nil, fmt.Errorf("--tso: must be a positive TSO; got %d", pos.TSO)
	}
	from := checkpoint.BoundAt(doris.PhysicalMs(pos.TSO))
	if st.Stream != nil && !checkpoint.BoundAt(from.Ms()+1000).After(st.Stream.Start) {
		last := checkpoint.LastBefore(key, pos.TSO)
		return nil, st.MoveTable(key, from, &last)
	}
	// The TSO's second is not closed by the chain yet: the table waits
	// there and reads the whole second.
	note := fmt.Sprintf("TSO %d lies in %s, which the chain has not finished: table %s reads from the start of that second, so its changes of that second before the TSO come too",
		pos.TSO, from, key)
	return []string{note}, st.MoveTable(key, from, nil)
}

// Reset makes each table take a new snapshot at the next start; the other
// tables stream on.
func (t *Target) Reset(ctx context.Context, tables []string, opts EditOptions) (*Edit, error) {
	if len(tables) == 0 {
		return nil, fmt.Errorf("--table: name at least one table to reset")
	}
	if !t.HasSnapshotPhase() {
		return nil, fmt.Errorf("field scan_mode: %s has no snapshot phase, so a table cannot take a new snapshot; use offsets set instead", t.ScanMode)
	}
	return t.edit(ctx, opts, func(st *checkpoint.State) ([]string, error) {
		var notes []string
		for _, table := range tables {
			key, err := tableKey(st, table)
			if err != nil {
				return nil, err
			}
			notes = append(notes, droppedSignals(st, key)...)
			if err := st.Resnapshot(key); err != nil {
				return nil, err
			}
		}
		return notes, nil
	})
}

// droppedSignals says what a set or reset of table key drops of the
// signals: the operator's position replaces the snapshot a signal started
// and a signal noted but not applied yet, which would otherwise move the
// table again when the chain's window ends.
func droppedSignals(st *checkpoint.State, key string) []string {
	t := st.Tables[key]
	var notes []string
	if t.Signal != "" {
		notes = append(notes, fmt.Sprintf("table %s: the snapshot of signal %s it was taking is abandoned (its rows delivered so far stay delivered)", key, t.Signal))
	}
	if p := t.Pending; p != nil {
		notes = append(notes, fmt.Sprintf("table %s: its pending %s signal %s is dropped and will not be applied", key, p.Kind, p.ID))
	}
	return notes
}

// edit loads the checkpoint, refuses while an input runs on it (unless
// forced), applies change to a copy, and saves it unless it is a dry run.
func (t *Target) edit(ctx context.Context, opts EditOptions, change func(*checkpoint.State) ([]string, error)) (*Edit, error) {
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	l, err := t.load(ctx)
	if err != nil {
		return nil, err
	}
	if l.st.InFEZone() {
		return nil, fmt.Errorf("checkpoint_cache %s, key %s: the checkpoint holds FE-zone times of an older release; start the pipeline once to convert it, then run this command again", t.Cache, t.Key)
	}
	if err := t.checkIdle(l.st, opts); err != nil {
		return nil, err
	}
	after := l.st.Clone()
	notes, err := change(after)
	if err != nil {
		return nil, fmt.Errorf("checkpoint_cache %s, key %s: %w", t.Cache, t.Key, err)
	}
	if _, err := checkpoint.Encode(after); err != nil {
		return nil, fmt.Errorf("checkpoint_cache %s, key %s: the changed checkpoint would be invalid: %w", t.Cache, t.Key, err)
	}
	f := askDoris(ctx, t, l.st)
	e := &Edit{Before: buildReport(t, l.st, l.fromBackup, f), DryRun: opts.DryRun, Notes: notes}
	if !opts.DryRun {
		if err := t.store.SaveEdit(ctx, after); err != nil {
			return nil, fmt.Errorf("%s", t.redact(err.Error()))
		}
		e.Written = true
	}
	e.After = buildReport(t, after, false, f)
	return e, nil
}

// checkIdle refuses a change while an input seems to run on the
// checkpoint: it saved within RunningWindow, and would overwrite the
// change with its own next save.
func (t *Target) checkIdle(st *checkpoint.State, opts EditOptions) error {
	if opts.Force || st.SavedAt.IsZero() {
		return nil
	}
	ago := opts.Now.Sub(st.SavedAt)
	if ago >= t.RunningWindow() {
		return nil
	}
	return fmt.Errorf("checkpoint_cache %s, key %s was saved %s ago (at %s), within %s (3 × binlog_poll_interval, at least %s): "+
		"a pipeline seems to be running on it and would overwrite the change; stop it and wait, or pass --force",
		t.Cache, t.Key, ago.Round(time.Millisecond), st.SavedAt.UTC().Format(time.RFC3339), t.RunningWindow(), minRunningWindow)
}

// tableKey finds table in st, as written or in its canonical db.table form.
func tableKey(st *checkpoint.State, table string) (string, error) {
	if st.Tables[table] != nil {
		return table, nil
	}
	if db, tbl, err := doris.ParseTableIdentifier(table); err == nil {
		if key := doris.FormatTableIdentifier(db, tbl); st.Tables[key] != nil {
			return key, nil
		}
	}
	names := st.TableNames()
	const shown = 10
	list := strings.Join(names[:min(len(names), shown)], ", ")
	if len(names) > shown {
		list += fmt.Sprintf(" and %d more", len(names)-shown)
	}
	return "", fmt.Errorf("--table: table %s is not in the checkpoint (it holds %s)", table, list)
}
