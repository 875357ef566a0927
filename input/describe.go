package input

import (
	"fmt"
	"strings"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// describeState summarizes a position for logs.
func describeState(st *checkpoint.State) string {
	var parts []string
	if st.Stream != nil {
		parts = append(parts, "binlog "+describeWindow(st.Stream))
	}
	for _, name := range st.TableNames() {
		parts = append(parts, name+" "+describeTable(st.Tables[name]))
	}
	return strings.Join(parts, "; ")
}

func describeWindow(w *checkpoint.Window) string {
	switch {
	case w.Last != nil:
		return fmt.Sprintf("window [%s, %s) after tso %d table %s lsn %d op %d", w.Start, w.End, w.Last.TSO, w.Last.Table, w.Last.LSN, w.Last.Op)
	case w.End != "":
		return fmt.Sprintf("window [%s, %s)", w.Start, w.End)
	}
	return "from " + w.Start
}

func describeTable(t *checkpoint.Table) string {
	switch t.Phase {
	case checkpoint.PhaseSnapshot:
		s := fmt.Sprintf("snapshot, %d tablets done", len(t.DoneTablets))
		if t.Start != "" {
			s += ", its binlog from " + t.Start
		}
		return s
	case checkpoint.PhaseCatchUp:
		return "catching up, " + describeWindow(t.CatchUp)
	}
	return t.Phase
}
