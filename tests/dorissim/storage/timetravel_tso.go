package storage

import "sync"

// commitIndex is the commit TSO of every key's latest binlog record on a
// UNIQUE KEY table: the value of __DORIS_COMMIT_TSO_COL__ of its current
// row. A read that selects the column looks each row up here instead of
// walking the whole log for each split; the index follows the log as it
// grows and is rebuilt when the log is rewritten (schema change, TRUNCATE,
// DROP PARTITION).
type commitIndex struct {
	mu   sync.Mutex
	log  []*record // the log the index covers (a prefix of the table's log)
	last map[string]int64
}

// withLatestCommitTSOs calls fn with t's index, brought up to t's log.
// Callers hold s.mu (read or write), so the log does not change meanwhile;
// fn runs under the index's own lock, since concurrent readers extend it.
func (s *Store) withLatestCommitTSOs(t *table, fn func(last map[string]int64)) {
	v, _ := s.commitTSOs.LoadOrStore(t, &commitIndex{})
	ci := v.(*commitIndex)
	ci.mu.Lock()
	defer ci.mu.Unlock()
	n := len(ci.log)
	if n > len(t.log) || n > 0 && (ci.log[0] != t.log[0] || ci.log[n-1] != t.log[n-1]) {
		n = 0 // records were dropped or replaced: a record keeps its index only while the log only grows
	}
	if n == 0 {
		ci.last = make(map[string]int64, len(t.log))
	}
	for _, r := range t.log[n:] {
		ci.last[r.key] = r.tso
	}
	ci.log = t.log
	fn(ci.last)
}

// uniqueWithCommitTSO is the current rows of UNIQUE tablets with the
// commit TSO of each row's latest write.
func (s *Store) uniqueWithCommitTSO(t *table, tbs []*tablet) ([][]stampedRow, error) {
	chunks := make([][]stampedRow, len(tbs))
	var err error
	s.withLatestCommitTSOs(t, func(last map[string]int64) {
		for i, tb := range tbs {
			rows := t.snapshot(tb)
			out := make([]stampedRow, len(rows))
			for j, row := range rows {
				tso, ok := last[t.keyOf(row)]
				if !ok {
					err = errorf("simulator: a row of %s has no binlog record", t.def.Name)
					return
				}
				out[j] = stampedRow{row: row, tso: tso}
			}
			chunks[i] = out
		}
	})
	return chunks, err
}
