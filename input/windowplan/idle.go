package windowplan

import "github.com/rpconnect-doris/rpconnect-doris/input/idle"

// Table names a followed table for the idle rule.
type Table struct{ DB, Name string }

// SkipIdle applies the idle rule (package idle, docs/idle-tables.md) to
// window w, whose end was chosen before ends, the version snapshots by
// database, were read: skip[i] tells that tables[i] had no commit in w, so
// leaving it out of w's read is the same as reading it empty. A table of
// a database without a snapshot in ends is read. The snapshots are then
// recorded as possible starts of the windows after w (those fenced below
// a later window's start serve it).
func SkipIdle(rule *idle.Rule, w Window, tables []Table, ends map[string]*idle.Snapshot) (skip []bool) {
	skip = make([]bool, len(tables))
	for i, t := range tables {
		skip[i] = rule.Idle(t.DB, t.Name, w.Start.Ms(), ends[t.DB])
	}
	for db, s := range ends {
		rule.Record(db, s, w.End.Ms())
	}
	return skip
}
