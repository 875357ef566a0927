package storage

import (
	"fmt"
	"math"
	"math/rand"
	"testing"
)

// The DUP fast path (a prefix of each tablet's rows) gives exactly the rows,
// in the same order, that rebuilding the tablets from the binlog gives, at
// every commit TSO, between them, for every tablet and for all of them.
func TestDupRowsAsOfMatchesTheBinlog(t *testing.T) {
	s := newStoreWith(t, nil, ttDupDDL)
	rng := rand.New(rand.NewSource(34))
	targets := []int64{0, 1, math.MaxInt64}
	for c := 0; c < 40; c++ {
		rows := make([][]any, 1+rng.Intn(5))
		for i := range rows {
			rows[i] = kv(int32(rng.Intn(20)), int32(c))
		}
		tso := insertRows(t, s, "tt_dup", rows...).Value
		targets = append(targets, tso-1, tso, tso+1)
	}
	info, err := s.Table("db", "tt_dup")
	if err != nil {
		t.Fatal(err)
	}
	subsets := [][]int64{nil, info.TabletIDs[:1], info.TabletIDs[1:3]}
	for _, x := range targets {
		for _, ids := range subsets {
			fast := fmt.Sprint(drain(t, mustIter(t)(s.ScanAsOf("db", "tt_dup", ids, x))))
			var slow [][]any
			for _, r := range drain(t, mustIter(t)(s.ScanAsOfWithCommitTSO("db", "tt_dup", ids, x))) {
				if r[2].(int64) > x {
					t.Fatalf("as of %d: a row of commit %d", x, r[2])
				}
				slow = append(slow, r[:2])
			}
			if fast != fmt.Sprint(slow) {
				t.Fatalf("as of %d, tablets %v:\nprefix  %s\nbinlog  %s", x, ids, fast, fmt.Sprint(slow))
			}
		}
	}
}

func mustIter(t *testing.T) func(RowIter, error) RowIter {
	return func(it RowIter, err error) RowIter {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return it
	}
}

// The merge-on-write read from the target on gives exactly the rows, in
// key order, that the whole-log rebuild gives, through inserts, upserts,
// updates and deletes, at every commit TSO and between them.
func TestUniqueRowsAsOfMatchesTheBinlog(t *testing.T) {
	s := newStoreWith(t, nil, ttMowDDL)
	rng := rand.New(rand.NewSource(34))
	targets := []int64{math.MaxInt64} // 0 is past the TTL
	live := map[int32][]any{}
	for c := 0; c < 60; c++ {
		tso := exec(t, s, func(tx *Txn) error {
			for n := 1 + rng.Intn(4); n > 0; n-- {
				k := int32(rng.Intn(15))
				cur, ok := live[k]
				switch {
				case ok && rng.Intn(3) == 0:
					delete(live, k)
					if err := tx.Delete("db", "tt_mow", cur); err != nil {
						return err
					}
				default:
					row := kv(k, int32(c*10+n))
					live[k] = row
					if err := tx.Insert("db", "tt_mow", row); err != nil {
						return err
					}
				}
			}
			return nil
		}).Value
		targets = append(targets, tso-1, tso, tso+1)
		// The commit-TSO index follows the log commit by commit.
		got := fmt.Sprint(drain(t, mustIter(t)(s.ScanWithCommitTSO("db", "tt_mow", nil))))
		if want := wholeLogWithCommitTSO(t, s); got != want {
			t.Fatalf("after commit %d:\nindex     %s\nwhole log %s", c, got, want)
		}
	}
	info, err := s.Table("db", "tt_mow")
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range targets {
		for _, ids := range [][]int64{nil, info.TabletIDs[:1], info.TabletIDs[1:3]} {
			fast := fmt.Sprint(drain(t, mustIter(t)(s.ScanAsOf("db", "tt_mow", ids, x))))
			var slow [][]any
			for _, r := range drain(t, mustIter(t)(s.ScanAsOfWithCommitTSO("db", "tt_mow", ids, x))) {
				slow = append(slow, r[:2])
			}
			if fast != fmt.Sprint(slow) {
				t.Fatalf("as of %d, tablets %v:\nfrom the target %s\nwhole log       %s", x, ids, fast, fmt.Sprint(slow))
			}
		}
	}
}

// wholeLogWithCommitTSO is the current rows of tt_mow with their commit
// TSOs, rebuilt from the whole binlog.
func wholeLogWithCommitTSO(t *testing.T, s *Store) string {
	t.Helper()
	s.mu.RLock()
	defer s.mu.RUnlock()
	tb, err := s.lookup("db", "tt_mow")
	if err != nil {
		t.Fatal(err)
	}
	chunks, err := uniqueAsOf(tb, tb.tablets, math.MaxInt64)
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]any
	for _, c := range chunks {
		for _, r := range c {
			rows = append(rows, append(append([]any(nil), r.row...), r.tso))
		}
	}
	return fmt.Sprint(rows)
}
