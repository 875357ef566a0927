package storage

import (
	"math"
	"sort"
)

// Time travel on OLAP tables: `FROM t FOR VERSION AS OF <tso>` (Doris 5.0,
// apache/doris#64776; docs/time-travel.md). Doris reads the partitions'
// visible versions and then keeps the commits with TSO <= the target: on a
// DUPLICATE KEY table a filter on the hidden commit-TSO column, on a
// merge-on-write table the rows unchanged since the target plus, from the
// row binlog, the before-image of the first later change of every other key.
// The read does not wait for pending publishes: a commit held by a
// PublishHold is missed, as a real read misses an unpublished transaction.

// ColCommitTSO is the hidden column holding the commit TSO of a row's
// latest write, on row-binlog tables (shown with show_hidden_columns).
const ColCommitTSO = "__DORIS_COMMIT_TSO_COL__"

// Doris's texts (docs/time-travel.md §1.2 and §1.5).
const (
	msgTimeTravelNoBinlog = "FOR VERSION/TIME AS OF requires row binlog"
	msgTimeTravelModel    = "FOR VERSION/TIME AS OF is only supported on duplicate or unique merge-on-write tables"
	msgTimeTravelNoHist   = "FOR VERSION/TIME AS OF on merge-on-write table requires binlog.need_historical_value=true"
	msgBinlogExpired      = "Row binlog offset has expired according to binlog.ttl_seconds"
)

// ScanAsOf reads the given tablets (nil = all) as of commit TSO asOf: the
// rows of the commits with TSO <= asOf, in tablet order then key order
// (UNIQUE) or insertion order (DUP). A value past the current TSO reads the
// current data; 0 reads nothing. A merge-on-write table whose target is
// older than binlog.ttl_seconds allows fails, because its before-images are
// no longer retained; a DUP table is never limited by the TTL.
func (s *Store) ScanAsOf(db, name string, tablets []int64, asOf int64) (RowIter, error) {
	return s.scanTSO(db, name, tablets, asOf, false, true)
}

// ScanWithCommitTSO reads the current rows of the given tablets with one
// more column, ColCommitTSO: the commit TSO of each row's latest write.
func (s *Store) ScanWithCommitTSO(db, name string, tablets []int64) (RowIter, error) {
	return s.scanTSO(db, name, tablets, math.MaxInt64, true, false)
}

// ScanAsOfWithCommitTSO is ScanAsOf with the ColCommitTSO column appended.
func (s *Store) ScanAsOfWithCommitTSO(db, name string, tablets []int64, asOf int64) (RowIter, error) {
	return s.scanTSO(db, name, tablets, asOf, true, true)
}

func (s *Store) scanTSO(db, name string, tablets []int64, asOf int64, withTSO, travel bool) (RowIter, error) {
	nowMs := s.CurrentTSO().PhysicalMs
	s.mu.RLock()
	defer s.mu.RUnlock()
	t, err := s.lookup(db, name)
	if err != nil {
		return nil, err
	}
	if travel {
		if err := checkTimeTravel(t, asOf, nowMs); err != nil {
			return nil, err
		}
	} else if !t.rowBinlog {
		return nil, errorf("Unknown column '%s' in 'table list'", ColCommitTSO)
	}
	tbs, err := t.findTablets(tablets)
	if err != nil {
		return nil, err
	}
	s.noteScan(t)
	switch {
	case withTSO: // below, with each row's commit TSO
	case t.def.Keys == UniqueKeys:
		rows, err := uniqueRowsAsOf(t, tbs, asOf)
		if err != nil {
			return nil, err
		}
		return newChunkIter(rows), nil
	default:
		if rows, ok := dupRowsAsOf(t, tbs, asOf); ok {
			return newChunkIter(rows), nil
		}
	}
	var chunks [][]stampedRow
	switch {
	case t.def.Keys == UniqueKeys && !travel:
		chunks, err = s.uniqueWithCommitTSO(t, tbs)
	case t.def.Keys == UniqueKeys:
		chunks, err = uniqueAsOf(t, tbs, asOf)
	default:
		chunks, err = dupAsOf(t, tbs, asOf)
	}
	if err != nil {
		return nil, err
	}
	out := make([][][]any, len(chunks))
	for i, c := range chunks {
		out[i] = make([][]any, len(c))
		for j, r := range c {
			if withTSO {
				out[i][j] = append(append(make([]any, 0, len(r.row)+1), r.row...), r.tso)
			} else {
				out[i][j] = r.row
			}
		}
	}
	return newChunkIter(out), nil
}

// checkTimeTravel applies Doris's table checks, then the retention check
// of merge-on-write tables. Expiry is modelled like a MIN_DELTA start: the
// changes after asOf are needed, so the target is expired when its
// physical ms is at or before now - TTL.
func checkTimeTravel(t *table, asOf, nowMs int64) error {
	switch {
	case !t.rowBinlog:
		return errorf("%s", msgTimeTravelNoBinlog)
	case t.def.Keys == UniqueKeys && !t.mow:
		return errorf("%s", msgTimeTravelModel)
	case t.def.Keys == UniqueKeys && !t.needHist:
		return errorf("%s", msgTimeTravelNoHist)
	case t.def.Keys == UniqueKeys && asOf>>tsoLogicalBits <= nowMs-t.ttl*1000:
		return errorf("%s", msgBinlogExpired)
	}
	return nil
}

// stampedRow is a row with the commit TSO of its latest write.
type stampedRow struct {
	row []any
	tso int64
}

// dupAsOf rebuilds DUP tablets from the binlog: on a row-binlog DUP table
// every committed row has exactly one insert record (deletes are refused,
// truncation and DROP PARTITION drop rows and records together), so the
// inserts up to asOf, in log order, are the tablet's rows at asOf.
func dupAsOf(t *table, tbs []*tablet, asOf int64) ([][]stampedRow, error) {
	idx := tabletIndex(tbs)
	chunks := make([][]stampedRow, len(tbs))
	for _, r := range t.log {
		if r.tso > asOf {
			break // the log is in TSO order
		}
		if r.op != rawInsert {
			return nil, errorf("simulator: DUP table %s has a %d binlog record", t.def.Name, r.op)
		}
		if i, ok := idx[t.tabletFor(r.row)]; ok {
			chunks[i] = append(chunks[i], stampedRow{row: r.row, tso: r.tso})
		}
	}
	return chunks, nil
}

// keyHistory is what the binlog says about one key around the target.
type keyHistory struct {
	lastTSO    int64   // latest record: the commit TSO of the current row
	lastAtOrLE int64   // latest record at or before the target
	firstAfter *record // first record after the target, nil when none
}

// uniqueAsOf keeps the current rows of keys unchanged since asOf and puts
// back, for every key changed later, its value at asOf: the before-image
// of its first later update or delete. A key whose first later change is
// an insert did not exist at asOf.
func uniqueAsOf(t *table, tbs []*tablet, asOf int64) ([][]stampedRow, error) {
	hist := make(map[string]*keyHistory)
	for _, r := range t.log {
		h := hist[r.key]
		if h == nil {
			h = &keyHistory{}
			hist[r.key] = h
		}
		h.lastTSO = r.tso
		if r.tso <= asOf {
			h.lastAtOrLE = r.tso
		} else if h.firstAfter == nil {
			h.firstAfter = r
		}
	}
	idx := tabletIndex(tbs)
	chunks := make([][]stampedRow, len(tbs))
	for i, tb := range tbs {
		for _, row := range t.snapshot(tb) {
			h := hist[t.keyOf(row)]
			if h == nil {
				return nil, errorf("simulator: a row of %s has no binlog record", t.def.Name)
			}
			if h.firstAfter == nil {
				chunks[i] = append(chunks[i], stampedRow{row: row, tso: h.lastTSO})
			}
		}
	}
	for _, h := range hist {
		if h.firstAfter == nil {
			continue
		}
		old, err := t.rowBefore(h.firstAfter)
		if err != nil {
			return nil, err
		}
		if old == nil {
			continue // an insert: the key had no row at the target
		}
		if i, ok := idx[t.tabletFor(old)]; ok {
			chunks[i] = append(chunks[i], stampedRow{row: old, tso: h.lastAtOrLE})
		}
	}
	for _, c := range chunks {
		sort.Slice(c, func(a, b int) bool { return t.compareKeys(c[a].row, c[b].row) < 0 })
	}
	return chunks, nil
}

// rowBefore is the row r's key held just before change r: nil for an
// insert (the key did not exist), the full pre-delete row a delete record
// carries, an update's before-image.
func (t *table) rowBefore(r *record) ([]any, error) {
	old := r.row
	switch r.op {
	case rawInsert:
		return nil, nil
	case rawUpdate:
		old = r.before
	}
	if old == nil {
		return nil, errorf("simulator: %s keeps no before-image for a change after the target", t.def.Name)
	}
	return old, nil
}

func tabletIndex(tbs []*tablet) map[*tablet]int {
	idx := make(map[*tablet]int, len(tbs))
	for i, tb := range tbs {
		idx[tb] = i
	}
	return idx
}
