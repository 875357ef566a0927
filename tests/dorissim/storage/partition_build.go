package storage

import (
	"strings"
)

// resolvePartitioning validates the PARTITION BY clause against the
// columns and key model with Doris's texts, and lays out the initial
// partitions (ids and tablets are allocated by CreateTable).
func resolvePartitioning(t *table) error {
	d := t.def.Partition
	if d == nil {
		t.parts = []*partition{{name: t.def.Name, lowerMin: true, upperMax: true}}
		return nil
	}
	t.part = partitioning{kind: d.Kind, auto: d.Auto, unit: d.Unit}
	for _, name := range d.Columns {
		idx, err := partitionColumn(t, name)
		if err != nil {
			return err
		}
		t.part.cols = append(t.part.cols, idx)
	}
	if err := checkAuto(t); err != nil {
		return err
	}
	for _, item := range d.Items {
		p, err := buildItem(t, item)
		if err != nil {
			return err
		}
		if err := checkNewPartition(t, p); err != nil {
			return err
		}
		insertPartition(t, p)
	}
	return nil
}

func partitionColumn(t *table, name string) (int, error) {
	idx := t.colIndex(name)
	if idx < 0 {
		return 0, errorf("Partition column[%s] does not exist in column list.", name)
	}
	c := t.def.Columns[idx]
	if !c.Key && t.def.Keys == UniqueKeys {
		if t.mow {
			return 0, errorf("Merge-on-Write table's partition column must be KEY column")
		}
		return 0, errorf("The partition column could not be aggregated column")
	}
	switch c.Type.Kind {
	case Float, Double:
		return 0, errorf("Floating point type column can not be partition column")
	case String, JSON, Array, Map, Struct:
		return 0, errorf("Invalid partition column '%s': invalid data type %s", c.Name, c.Type)
	}
	return idx, nil
}

func checkAuto(t *table) error {
	if !t.part.auto || t.part.kind != PartitionRange {
		if t.part.auto {
			return errorf("AUTO LIST PARTITION is not supported by the simulator")
		}
		return nil
	}
	c := t.def.Columns[t.part.cols[0]]
	if c.Type.Kind != Date && c.Type.Kind != DateTime {
		return errorf("AUTO RANGE PARTITION on a %s column is not supported by the simulator (DATE or DATETIME only)", c.Type)
	}
	if c.Nullable {
		return errorf("AUTO RANGE PARTITION doesn't support NULL column")
	}
	if !autoUnits[t.part.unit] {
		return errorf("date_trunc unit '%s' is not supported by the simulator (year, quarter, month, week, day, hour)", t.part.unit)
	}
	return nil
}

// buildItem converts one written partition into bounds of the column types.
func buildItem(t *table, item PartitionItemDef) (*partition, error) {
	p := &partition{name: item.Name}
	var err error
	switch {
	case t.part.kind == PartitionList:
		if item.In == nil {
			return nil, errorf("List partition %s must use VALUES IN", item.Name)
		}
		for _, tuple := range item.In {
			vals, e := partitionValues(t, item.Name, stringPtrs(tuple), false)
			if e != nil {
				return nil, e
			}
			p.values = append(p.values, vals)
		}
	case item.LessThan != nil:
		p.upper, err = partitionValues(t, item.Name, item.LessThan, true)
		p.upperMax = isMaxBound(item.LessThan)
	case item.Lower != nil:
		if p.lower, err = partitionValues(t, item.Name, item.Lower, false); err != nil {
			return nil, err
		}
		p.upper, err = partitionValues(t, item.Name, item.Upper, true)
		p.upperMax = isMaxBound(item.Upper)
		if err == nil && !p.upperMax && compareBounds(p.lower, p.upper) >= 0 {
			return nil, errorf("The lower values must smaller than upper values")
		}
	default:
		return nil, errorf("Range partition %s must use VALUES LESS THAN or VALUES [...)", item.Name)
	}
	return p, err
}

func isMaxBound(vals []*string) bool {
	for _, v := range vals {
		if v != nil {
			return false
		}
	}
	return true
}

func stringPtrs(vals []string) []*string {
	out := make([]*string, len(vals))
	for i := range vals {
		out[i] = &vals[i]
	}
	return out
}

// partitionValues parses bound text with the partition columns' types;
// nil text (MAXVALUE) stays nil.
func partitionValues(t *table, name string, vals []*string, allowMax bool) ([]any, error) {
	if len(vals) > len(t.part.cols) {
		return nil, errorf("Partition values number is more than partition column number: %s", name)
	}
	out := make([]any, len(vals))
	for i, v := range vals {
		if v == nil {
			if !allowMax {
				return nil, errorf("Invalid range value format： MAXVALUE is only allowed in the upper bound")
			}
			continue
		}
		c := t.def.Columns[t.part.cols[i]]
		pv, err := ParseValue(c.Type, *v)
		if err != nil {
			return nil, errorf("Invalid range value format： %v", err)
		}
		out[i] = pv
	}
	return out, nil
}

func compareBounds(a, b []any) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if r := compareValues(a[i], b[i]); r != 0 {
			return r
		}
	}
	return len(a) - len(b)
}

// checkNewPartition fills a LESS THAN partition's lower bound from its
// predecessor and rejects duplicate names and overlaps.
func checkNewPartition(t *table, p *partition) error {
	for _, q := range t.parts {
		if strings.EqualFold(q.name, p.name) {
			return errorf("Duplicate partition name %s", p.name)
		}
	}
	if t.part.kind == PartitionList {
		for _, tuple := range p.values {
			for _, q := range t.parts {
				for _, other := range q.values {
					if compareBounds(tuple, other) == 0 {
						return errorf("The partition key[%s] in partition item[%s] is conflict", tupleText(t, tuple), p.name)
					}
				}
			}
		}
		return nil
	}
	if p.lower == nil {
		fillLessThanLower(t, p)
	}
	for _, q := range t.parts {
		if rangesOverlap(t, p, q) {
			return errorf("Range %s is intersected with range: %s", rangeText(t, p), rangeText(t, q))
		}
	}
	return nil
}

// fillLessThanLower makes VALUES LESS THAN start where the highest
// partition below its upper bound ends (or at the type minimum).
func fillLessThanLower(t *table, p *partition) {
	p.lowerMin = true
	for _, q := range t.parts {
		if q.upperMax || (!p.upperMax && compareBounds(q.upper, p.upper) >= 0) {
			continue
		}
		if p.lowerMin || compareBounds(q.upper, p.lower) > 0 {
			p.lower, p.lowerMin = q.upper, false
		}
	}
}

func rangesOverlap(t *table, a, b *partition) bool {
	// a starts before b ends, and b starts before a ends.
	return startsBeforeEnd(t, a, b) && startsBeforeEnd(t, b, a)
}

func startsBeforeEnd(t *table, a, b *partition) bool {
	if a.lowerMin || b.upperMax {
		return true
	}
	return compareBounds(a.lower, b.upper) < 0
}
