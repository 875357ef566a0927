package checkpoint

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"
)

// The joining table's state space: a model of the input's run loop that
// changes the position only through the phase machine's transitions
// (catch-ups, then the chain's next window; a snapshot that finishes at any
// moment), crashed after any emitted position and restarted from it, up to
// twice. Every emitted position counts as committed, so the rows delivered
// up to a crash are exactly what the position says was delivered; after
// the last run every table must have been delivered each of its binlog rows
// from its start exactly once, in order.

const (
	joinChain = "db.a" // follows the chain from its start
	joinLate  = "db.t" // found later: snapshot, catch-up, then the chain
	joinBase  = "2026-12-01 10:00:00"
	// joinHorizon is the second at which the model's binlog ends.
	joinHorizon = 10
)

var joinBaseTime, _ = time.Parse(time.DateTime, joinBase)

func joinAt(sec int) Bound {
	return BoundAt(joinBaseTime.Add(time.Duration(sec) * time.Second).UnixMilli())
}

func joinSec(t *testing.T, ts Bound) int {
	if ts.IsZero() {
		t.Fatalf("bound not set")
	}
	sec := int((ts.Ms() - joinBaseTime.UnixMilli()) / 1000)
	return sec
}

type joinRow struct {
	sec int
	pos Pos
}

// joinBinlog has, in every second, one transaction that changed both
// tables (one TSO, the tables in name order), then one of each alone.
func joinBinlog() []joinRow {
	var rows []joinRow
	for sec := range joinHorizon {
		tso := int64(sec+1) * 100
		rows = append(rows,
			joinRow{sec, Pos{TSO: tso + 1, Table: joinChain, LSN: int64(2 * sec)}},
			joinRow{sec, Pos{TSO: tso + 1, Table: joinLate, LSN: int64(2 * sec)}},
			joinRow{sec, Pos{TSO: tso + 2, Table: joinChain, LSN: int64(2*sec + 1)}},
			joinRow{sec, Pos{TSO: tso + 3, Table: joinLate, LSN: int64(2*sec + 1)}})
	}
	return rows
}

var errJoinCrash = errors.New("crash")

// joinRun is one run of the model from a position.
type joinRun struct {
	t         *testing.T
	st        *State
	rows      []joinRow
	windowLen int // seconds per chain window
	batch     int // rows per emitted batch
	finishAt  int // the emission of the run that finishes T's snapshot
	crashAt   int // the run crashes after this emission; 0 never
	steps     int
	delivered map[string][]Pos // what every run delivered, by table
	cover     map[string]bool  // the committed positions a restart resumed, by joinCover
}

func (r *joinRun) emit(rows []Pos, change func(*State)) error {
	if r.steps+1 == r.finishAt && phaseOf(r.st, joinLate) == PhaseSnapshot {
		r.steps++
		r.st.FinishSnapshot(joinLate)
		if err := r.after(); err != nil {
			return err
		}
	}
	for _, p := range rows {
		r.delivered[p.Table] = append(r.delivered[p.Table], p)
	}
	change(r.st)
	r.steps++
	return r.after()
}

// after crashes the run after its crashAt-th emission: the position goes
// through a save and a load, as the next run's start.
func (r *joinRun) after() error {
	if r.steps != r.crashAt {
		return nil
	}
	b, err := Encode(r.st)
	if err != nil {
		r.t.Fatalf("saving the position after emission %d: %v", r.steps, err)
	}
	if r.st, err = Decode(b); err != nil {
		r.t.Fatalf("loading the position saved after emission %d: %v", r.steps, err)
	}
	r.cover[joinCover(r.t, r.st)] = true
	return errJoinCrash
}

// read emits the rows of tables in w after w.Last in position order, as
// the window reader does; place records each batch's last row. The reader
// may read a table's part in pieces split in time (windowread.go): the rows
// come out in the same order and each position still names the whole
// window, so pieces show here only as where the last row lies (joinCover).
func (r *joinRun) read(tables []string, w Window, place func(*State, Pos)) error {
	from, to := joinSec(r.t, w.Start), joinSec(r.t, w.End)
	var out []Pos
	for _, row := range r.rows {
		if row.sec >= from && row.sec < to && slices.Contains(tables, row.pos.Table) && (w.Last == nil || w.Last.Less(row.pos)) {
			out = append(out, row.pos)
		}
	}
	for len(out) > 0 {
		n := min(r.batch, len(out))
		b := out[:n]
		out = out[n:]
		last := b[n-1]
		if err := r.emit(b, func(st *State) { place(st, last) }); err != nil {
			return err
		}
	}
	return nil
}

func (r *joinRun) phaseKeys(phase string) []string {
	var keys []string
	for _, k := range r.st.TableNames() {
		if r.st.Tables[k].Phase == phase {
			keys = append(keys, k)
		}
	}
	return keys
}

// run is the input's loop: catch-ups, then the chain's next window (the
// same one again when it was chosen before), until the chain is past the
// binlog's end and every table follows it.
func (r *joinRun) run() error {
	for range 100 {
		if joinSec(r.t, r.st.Stream.Start) >= joinHorizon && len(r.phaseKeys(PhaseBinlog)) == len(r.st.Tables) {
			return nil
		}
		type due struct {
			key string
			w   Window
		}
		var catchUps []due
		for _, key := range r.phaseKeys(PhaseCatchUp) {
			if w, ok := r.st.CatchUpWindow(key); ok {
				catchUps = append(catchUps, due{key, w})
			}
		}
		for _, c := range catchUps {
			err := r.read([]string{c.key}, c.w, func(st *State, last Pos) { st.CatchUpProgress(c.key, c.w.Start, c.w.End, last) })
			if err != nil {
				return err
			}
			if err := r.emit(nil, func(st *State) { st.FinishCatchUp(c.key, c.w.End) }); err != nil {
				return err
			}
		}
		w := *r.st.Stream.Clone()
		if w.End.IsZero() {
			w.End = joinAt(joinSec(r.t, w.Start) + r.windowLen)
		}
		err := r.read(r.phaseKeys(PhaseBinlog), w, func(st *State, last Pos) { st.ChainProgress(w.Start, w.End, last) })
		if err != nil {
			return err
		}
		if err := r.emit(nil, func(st *State) { st.AdvanceChain(w.End) }); err != nil {
			return err
		}
	}
	r.t.Fatalf("the model did not finish: %+v", r.st.Stream)
	return nil
}

// joinPath is one path through the state space: the settings, and per run
// the emission that finishes the joining table's snapshot and the
// one after which the run crashes (0: none).
type joinPath struct {
	lateStart, windowLen, batch int
	finish, crash               []int
}

func (p joinPath) String() string {
	return fmt.Sprintf("T starts at +%ds, windows of %ds, %d row(s) a batch, snapshot finishes at emission %v of each run, crashes after %v",
		p.lateStart, p.windowLen, p.batch, p.finish, p.crash)
}

// joinCover names a committed position by the joining table's phase and
// the chain's state: a fresh window, or one resumed after its last row in
// the first or second half of it (pieces a split read reads separately).
func joinCover(t *testing.T, st *State) string {
	late := st.Tables[joinLate]
	phase := late.Phase
	if late.CatchUp != nil && !late.CatchUp.End.IsZero() {
		phase += " in its window"
	}
	chain := "fresh window"
	if w := st.Stream; w.Last != nil {
		mid := (joinSec(t, w.Start) + joinSec(t, w.End)) * 100 / 2
		chain = "mid-window, last row in the first piece"
		if w.Last.TSO >= int64(mid+100) {
			chain = "mid-window, last row in the second piece"
		}
	}
	return phase + " / " + chain
}

// joinExplorer runs every path and checks where each ends.
type joinExplorer struct {
	t        *testing.T
	rows     []joinRow
	cover    map[string]bool
	paths    int
	failures int
}

// Where runs crash and snapshots finish: the first run anywhere in its
// first windows, the second soon after its start (the resumed window and
// the catch-ups before it), the third never.
var (
	joinFirstRun  = joinSteps(1, 20)
	joinSecondRun = []int{1, 2, 4, 7}
)

func joinSteps(from, to int) []int {
	var out []int
	for i := from; i <= to; i++ {
		out = append(out, i)
	}
	return out
}

// explore runs one more run from st, having delivered delivered, once for
// every way the run can go: where the snapshot (when still under way)
// finishes and where the run crashes; the last of runs never crashes.
func (x *joinExplorer) explore(p joinPath, st *State, delivered map[string][]Pos, runs int) {
	steps := joinSecondRun
	if len(p.crash) == 0 {
		steps = joinFirstRun
	}
	crashes := append([]int{0}, steps...)
	if runs == 1 {
		crashes = []int{0}
	}
	for _, crash := range crashes {
		finishes := []int{1}
		if phaseOf(st, joinLate) == PhaseSnapshot {
			finishes = steps
		}
		for _, finish := range finishes {
			if crash > 0 && finish > crash+1 {
				break // the run crashes before the snapshot finishes, as with crash+1
			}
			got := map[string][]Pos{}
			for k, v := range delivered {
				got[k] = slices.Clone(v)
			}
			r := &joinRun{t: x.t, st: st.Clone(), rows: x.rows, windowLen: p.windowLen, batch: p.batch,
				finishAt: finish, crashAt: crash, delivered: got, cover: x.cover}
			next := p
			next.finish, next.crash = append(slices.Clip(p.finish), finish), append(slices.Clip(p.crash), crash)
			err := r.run()
			switch {
			case errors.Is(err, errJoinCrash):
				x.explore(next, r.st, got, runs-1)
			case err != nil:
				x.t.Fatalf("%s: %v", next, err)
			default:
				mustValid(x.t, r.st, "the last run")
				x.check(next, got)
			}
		}
	}
}

// check compares what a path delivered with every row of each table from
// its start, once and in order.
func (x *joinExplorer) check(p joinPath, got map[string][]Pos) {
	x.paths++
	want := map[string][]Pos{}
	for _, row := range x.rows {
		if row.pos.Table == joinChain || row.sec >= p.lateStart {
			want[row.pos.Table] = append(want[row.pos.Table], row.pos)
		}
	}
	for _, key := range []string{joinChain, joinLate} {
		if slices.Equal(got[key], want[key]) {
			continue
		}
		x.failures++
		if x.failures <= 3 {
			x.t.Errorf("%s: %s delivered\n%v\nwant each of its rows from +%ds once, in order:\n%v", p, key, got[key], p.lateStart, want[key])
		}
	}
}

// TestLateTableJoinsWithoutLosingOrRepeatingRows walks a table found by
// discovery through snapshot, catch-up and the chain, against every chain
// state a restart can resume (a fresh window, a window resumed after its
// last row), and checks that each of its rows, and each of the chain
// table's, is delivered exactly once.
func TestLateTableJoinsWithoutLosingOrRepeatingRows(t *testing.T) {
	x := &joinExplorer{t: t, rows: joinBinlog(), cover: map[string]bool{}}
	for _, lateStart := range []int{0, 1, 3, 4} {
		for _, windowLen := range []int{2, 3} {
			for _, batch := range []int{1, 2} {
				st := New()
				st.StartChain(joinAt(0))
				st.AddTable(joinChain, false, Bound{}, 1)
				st.AddTable(joinLate, true, joinAt(lateStart), 1)
				x.explore(joinPath{lateStart: lateStart, windowLen: windowLen, batch: batch}, st, map[string][]Pos{}, 3)
			}
		}
	}
	if x.failures > 3 {
		t.Errorf("... and %d more failing paths of %d", x.failures-3, x.paths)
	}
	var missing []string
	for _, phase := range []string{PhaseSnapshot, PhaseCatchUp, PhaseCatchUp + " in its window", PhaseBinlog} {
		for _, chain := range []string{"fresh window", "mid-window, last row in the first piece", "mid-window, last row in the second piece"} {
			if name := phase + " / " + chain; !x.cover[name] {
				missing = append(missing, name)
			}
		}
	}
	if len(missing) > 0 {
		t.Errorf("no path restarted from a position with the joining table and the chain in %v; covered %v", missing, x.cover)
	}
	t.Logf("%d paths, restarted from %d kinds of position", x.paths, len(x.cover))
}
