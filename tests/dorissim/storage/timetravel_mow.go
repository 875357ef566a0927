package storage

import "sort"

// uniqueRowsAsOf is the merge-on-write read of ScanAsOf without the
// commit-TSO column. Only the changes after asOf matter: a key none of
// them touches keeps its current row, and every other key gets back its
// value at asOf, the before-image of its first later change (none when
// that change is an insert). Reading the log from the target on, rather
// than from its start, makes a recent target cost a plain scan; the rows
// are those of uniqueAsOf, in key order.
func uniqueRowsAsOf(t *table, tbs []*tablet, asOf int64) ([][][]any, error) {
	cut := sort.Search(len(t.log), func(i int) bool { return t.log[i].tso > asOf })
	first := make(map[string]*record)
	for _, r := range t.log[cut:] {
		if _, seen := first[r.key]; !seen {
			first[r.key] = r
		}
	}
	chunks := make([][][]any, len(tbs))
	if len(first) == 0 {
		for i, tb := range tbs {
			chunks[i] = t.snapshot(tb)
		}
		return chunks, nil
	}
	idx := tabletIndex(tbs)
	back := make([][][]any, len(tbs))
	for _, r := range first {
		old, err := t.rowBefore(r)
		if err != nil {
			return nil, err
		}
		if old == nil {
			continue // an insert: the key had no row at the target
		}
		if i, ok := idx[t.tabletFor(old)]; ok {
			back[i] = append(back[i], old)
		}
	}
	for i, tb := range tbs {
		cur := t.snapshot(tb)
		kept := make([][]any, 0, len(cur)+len(back[i]))
		for _, row := range cur {
			if _, changed := first[t.keyOf(row)]; !changed {
				kept = append(kept, row)
			}
		}
		t.sortByKey(back[i])
		chunks[i] = mergeByKey(t, kept, back[i])
	}
	return chunks, nil
}

// mergeByKey merges two key-ordered row lists without common keys.
func mergeByKey(t *table, a, b [][]any) [][]any {
	if len(b) == 0 {
		return a
	}
	out := make([][]any, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if t.compareKeys(a[0], b[0]) < 0 {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return append(append(out, a...), b...)
}
