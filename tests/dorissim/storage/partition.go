package storage

import (
	"strings"
	"time"
)

// partition is one Doris partition: a value range (RANGE) or value set
// (LIST) and its own buckets. An unpartitioned table has one partition
// named after the table covering every value, as Doris creates it.
type partition struct {
	id   int64
	name string
	// RANGE bounds, one value per partition column: [lower, upper).
	// lowerMin means the type minimum written by VALUES LESS THAN for the
	// first partition (it also holds NULLs); upperMax means MAXVALUE.
	lower, upper       []any
	lowerMin, upperMax bool
	values             [][]any // LIST value tuples
	tablets            []*tablet
	version            int64 // VisibleVersion: 1 at creation, +1 per publish
	versionMs          int64 // VisibleVersionTime
	committed          int64 // CommittedVersion (nextVersion - 1): +1 per commit, ahead of version while a publish is held
}

// partitioning is a table's resolved PARTITION BY clause.
type partitioning struct {
	kind string // "" (unpartitioned), PartitionRange or PartitionList
	cols []int  // partition column indexes
	auto bool
	unit string // AUTO RANGE date_trunc unit
}

// partitionOf returns the partition a row belongs to, or nil.
func partitionOf(t *table, row []any) *partition {
	if t.part.kind == "" {
		return t.parts[0]
	}
	for _, p := range t.parts {
		if partContains(t, p, row) {
			return p
		}
	}
	return nil
}

func partContains(t *table, p *partition, row []any) bool {
	if t.part.kind == PartitionList {
		for _, tuple := range p.values {
			if tupleEqual(t, tuple, row) {
				return true
			}
		}
		return false
	}
	if !p.lowerMin && compareTuple(t, row, p.lower) < 0 {
		return false
	}
	return p.upperMax || compareTuple(t, row, p.upper) < 0
}

// compareTuple compares a row's partition columns with a bound; a nil bound
// entry is MAXVALUE.
func compareTuple(t *table, row []any, bound []any) int {
	for i, c := range t.part.cols {
		if i >= len(bound) {
			return 1 // a bound shorter than the columns is MIN in the rest
		}
		if bound[i] == nil {
			return -1
		}
		if r := compareValues(row[c], bound[i]); r != 0 {
			return r
		}
	}
	return 0
}

func tupleEqual(t *table, tuple []any, row []any) bool {
	for i, c := range t.part.cols {
		if (tuple[i] == nil) != (row[c] == nil) || compareValues(tuple[i], row[c]) != 0 {
			return false
		}
	}
	return true
}

// rebuildTablets refreshes the flat tablet list (partition order, then
// bucket) that scans and the query plan use.
func rebuildTablets(t *table) {
	t.tablets = t.tablets[:0:0]
	for _, p := range t.parts {
		t.tablets = append(t.tablets, p.tablets...)
	}
}

// replaceTablets swaps every tablet for f's result, keeping partitions and
// the flat list consistent.
func replaceTablets(t *table, f func(*tablet) *tablet) {
	for _, p := range t.parts {
		for i, tb := range p.tablets {
			p.tablets[i] = f(tb)
		}
	}
	rebuildTablets(t)
}

// newPartition allocates the partition's id and tablets; callers hold s.mu.
func (s *Store) newPartition(t *table, p *partition) *partition {
	p.id = s.nextPartition
	s.nextPartition++
	p.version, p.committed, p.versionMs = 1, 1, s.opts.Clock().UnixMilli()
	p.tablets = make([]*tablet, t.def.Buckets)
	for i := range p.tablets {
		p.tablets[i] = newTablet(s.nextTablet)
		s.nextTablet++
	}
	return p
}

// autoPartitionFor creates the AUTO RANGE partition a row needs, as Doris
// does during the load: [date_trunc(v), date_trunc(v) + 1 unit), named
// p<yyyyMMddHHmmss> of its lower bound. Callers hold s.mu for writing.
func (s *Store) autoPartitionFor(t *table, row []any) *partition {
	c := t.part.cols[0]
	v, ok := row[c].(time.Time)
	if !ok {
		return nil
	}
	lo := truncTime(v, t.part.unit)
	hi := addUnit(lo, t.part.unit)
	p := &partition{name: "p" + lo.Format("20060102150405"), lower: []any{lo}, upper: []any{hi}}
	for _, q := range t.parts {
		if strings.EqualFold(q.name, p.name) {
			return nil
		}
	}
	insertPartition(t, s.newPartition(t, p))
	rebuildTablets(t)
	return p
}

// insertPartition keeps RANGE partitions ordered by lower bound; LIST
// partitions keep creation order.
func insertPartition(t *table, p *partition) {
	i := len(t.parts)
	if t.part.kind == PartitionRange {
		for i > 0 && lowerLess(t, p, t.parts[i-1]) {
			i--
		}
	}
	t.parts = append(t.parts, nil)
	copy(t.parts[i+1:], t.parts[i:])
	t.parts[i] = p
}

func lowerLess(t *table, a, b *partition) bool {
	if a.lowerMin || b.lowerMin {
		return a.lowerMin && !b.lowerMin
	}
	for i := range t.part.cols {
		if r := compareValues(a.lower[i], b.lower[i]); r != 0 {
			return r < 0
		}
	}
	return false
}

var autoUnits = map[string]bool{"year": true, "quarter": true, "month": true, "week": true, "day": true, "hour": true}

func truncTime(v time.Time, unit string) time.Time {
	y, m, d := v.Date()
	switch unit {
	case "year":
		return time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
	case "quarter":
		return time.Date(y, m-(m-1)%3, 1, 0, 0, 0, 0, time.UTC)
	case "month":
		return time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
	case "week": // date_trunc(..., 'week') starts weeks on Monday
		day := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
		return day.AddDate(0, 0, -((int(day.Weekday()) + 6) % 7))
	case "hour":
		return time.Date(y, m, d, v.Hour(), 0, 0, 0, time.UTC)
	}
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

func addUnit(v time.Time, unit string) time.Time {
	switch unit {
	case "year":
		return v.AddDate(1, 0, 0)
	case "quarter":
		return v.AddDate(0, 3, 0)
	case "month":
		return v.AddDate(0, 1, 0)
	case "week":
		return v.AddDate(0, 0, 7)
	case "hour":
		return v.Add(time.Hour)
	}
	return v.AddDate(0, 0, 1)
}
