package input

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// phaseLabels name the phases in start-up summaries, in the order a table
// goes through them.
var phaseLabels = []struct{ phase, label string }{
	{checkpoint.PhaseSnapshot, "in snapshot"},
	{checkpoint.PhaseCatchUp, "catching up"},
	{checkpoint.PhaseBinlog, "in binlog"},
	{checkpoint.PhaseDone, "done"},
}

// summarizeState describes a position for a start-up line at info level:
// the stream's window and, per phase, how many tables are in it and the
// first few of them. It stays one short line however many tables there
// are; logTablesAtDebug names each table's own position.
func summarizeState(st *checkpoint.State) string {
	var parts []string
	if st.Stream != nil {
		parts = append(parts, "binlog "+describeWindow(st.Stream))
	}
	byPhase := map[string][]string{}
	for name, t := range st.Tables {
		byPhase[t.Phase] = append(byPhase[t.Phase], name)
	}
	for _, p := range phaseLabels {
		if names := byPhase[p.phase]; len(names) > 0 {
			parts = append(parts, p.label+" "+tableList(names))
		}
		delete(byPhase, p.phase)
	}
	for _, phase := range slices.Sorted(maps.Keys(byPhase)) { // a phase of a newer build
		parts = append(parts, phase+" "+tableList(byPhase[phase]))
	}
	if len(st.Tables) == 0 {
		parts = append(parts, "no tables")
	}
	return strings.Join(parts, "; ")
}

// logTablesAtDebug logs each table's position, one line per table, for
// whoever follows one table through a run's start.
func logTablesAtDebug(log *service.Logger, st *checkpoint.State, where string) {
	for _, name := range st.TableNames() {
		log.Debugf("Table %s %s: %s", name, where, describeTable(st.Tables[name]))
	}
}

func describeWindow(w *checkpoint.Window) string {
	switch {
	case w.Last != nil:
		return fmt.Sprintf("window [%s, %s) after tso %d table %s lsn %d op %d", w.Start, w.End, w.Last.TSO, w.Last.Table, w.Last.LSN, w.Last.Op)
	case !w.End.IsZero():
		return fmt.Sprintf("window [%s, %s)", w.Start, w.End)
	}
	return "from " + w.Start.String()
}

func describeTable(t *checkpoint.Table) string {
	switch t.Phase {
	case checkpoint.PhaseSnapshot:
		s := fmt.Sprintf("snapshot, %d tablets done", len(t.DoneTablets))
		if !t.Start.IsZero() {
			s += ", its binlog from " + t.Start.String()
		}
		return s
	case checkpoint.PhaseCatchUp:
		return "catching up, " + describeWindow(t.CatchUp)
	}
	return t.Phase
}
