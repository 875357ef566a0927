package storage

import (
	"fmt"
	"strings"
)

// Partition kinds as Doris names them in SHOW CREATE TABLE.
const (
	PartitionRange = "RANGE"
	PartitionList  = "LIST"
)

// PartitionDef is a table's PARTITION BY clause as written. Values stay
// text until the table's column types are known (buildTable).
type PartitionDef struct {
	Kind    string   // PartitionRange or PartitionList
	Columns []string // partition columns (for AUTO RANGE: the date_trunc column)
	Auto    bool     // AUTO PARTITION BY ...
	Unit    string   // AUTO RANGE date_trunc unit, lower case ("day", "month", ...)
	Items   []PartitionItemDef
}

// PartitionItemDef is one `PARTITION p VALUES ...` entry.
type PartitionItemDef struct {
	Name string
	// LessThan is set for VALUES LESS THAN (...); nil values mean MAXVALUE.
	LessThan []*string
	// Lower and Upper are set for the fixed form VALUES [(...), (...)).
	Lower, Upper []*string
	// In holds LIST value tuples: VALUES IN ((..), (..)) or IN (v, v).
	In [][]string
}

func (d *PartitionDef) clone() *PartitionDef {
	if d == nil {
		return nil
	}
	c := *d
	c.Columns = append([]string(nil), d.Columns...)
	c.Items = append([]PartitionItemDef(nil), d.Items...)
	return &c
}

// parsePartitionClause parses what follows `[AUTO] PARTITION BY`.
func parsePartitionClause(s *tokenStream, auto bool) (*PartitionDef, error) {
	d := &PartitionDef{Auto: auto}
	switch {
	case s.acceptKeywords("RANGE"):
		d.Kind = PartitionRange
	case s.acceptKeywords("LIST"):
		d.Kind = PartitionList
	default:
		return nil, s.errorf("expected RANGE or LIST")
	}
	if err := parsePartitionColumns(s, d); err != nil {
		return nil, err
	}
	if err := s.expectPunct("("); err != nil {
		return nil, err
	}
	if s.acceptPunct(")") {
		return d, nil
	}
	for {
		item, err := parsePartitionItem(s, d.Kind)
		if err != nil {
			return nil, err
		}
		d.Items = append(d.Items, item)
		if s.acceptPunct(")") {
			return d, nil
		}
		if err := s.expectPunct(","); err != nil {
			return nil, err
		}
	}
}

// parsePartitionColumns reads `(col, ...)` or, for AUTO RANGE,
// `(date_trunc(col, 'unit'))`.
func parsePartitionColumns(s *tokenStream, d *PartitionDef) error {
	if !s.isPunct("(") || !s.peekAt(1).IsWord("date_trunc") {
		cols, err := parseIdentList(s)
		d.Columns = cols
		return err
	}
	s.pos += 2 // "(" date_trunc
	if err := s.expectPunct("("); err != nil {
		return err
	}
	col, err := s.ident()
	if err != nil {
		return err
	}
	if err := s.expectPunct(","); err != nil {
		return err
	}
	unit, err := s.stringLit()
	if err != nil {
		return err
	}
	if err := s.expectPunct(")"); err != nil {
		return err
	}
	d.Columns, d.Unit = []string{col}, strings.ToLower(unit)
	return s.expectPunct(")")
}

// parsePartitionItem reads `PARTITION [IF NOT EXISTS] name VALUES ...`
// with any trailing ("k" = "v") properties skipped.
func parsePartitionItem(s *tokenStream, kind string) (PartitionItemDef, error) {
	var item PartitionItemDef
	if err := s.expectKeywords("PARTITION"); err != nil {
		return item, err
	}
	s.acceptKeywords("IF", "NOT", "EXISTS")
	name, err := s.ident()
	if err != nil {
		return item, err
	}
	item.Name = name
	if err := s.expectKeywords("VALUES"); err != nil {
		return item, err
	}
	switch {
	case kind == PartitionRange && s.acceptKeywords("LESS", "THAN"):
		item.LessThan, err = parseBoundTuple(s, true)
	case kind == PartitionRange && s.acceptPunct("["):
		err = parseFixedRange(s, &item)
	case kind == PartitionList && s.acceptKeywords("IN"):
		item.In, err = parseListValues(s)
	default:
		return item, s.errorf("expected a %s partition value clause", kind)
	}
	if err != nil {
		return item, err
	}
	if s.isPunct("(") {
		err = s.skipBalanced()
	}
	return item, err
}

func parseFixedRange(s *tokenStream, item *PartitionItemDef) error {
	lower, err := parseBoundTuple(s, false)
	if err != nil {
		return err
	}
	if err := s.expectPunct(","); err != nil {
		return err
	}
	upper, err := parseBoundTuple(s, true)
	if err != nil {
		return err
	}
	item.Lower, item.Upper = lower, upper
	return s.expectPunct(")")
}

// parseBoundTuple reads `("v", ...)`, `(MAXVALUE)` or a bare MAXVALUE;
// MAXVALUE becomes a nil entry.
func parseBoundTuple(s *tokenStream, allowMax bool) ([]*string, error) {
	if allowMax && s.acceptKeywords("MAXVALUE") {
		return []*string{nil}, nil
	}
	if err := s.expectPunct("("); err != nil {
		return nil, err
	}
	var out []*string
	for {
		if allowMax && s.acceptKeywords("MAXVALUE") {
			out = append(out, nil)
		} else {
			v, err := partitionLiteral(s)
			if err != nil {
				return nil, err
			}
			out = append(out, &v)
		}
		if s.acceptPunct(")") {
			return out, nil
		}
		if err := s.expectPunct(","); err != nil {
			return nil, err
		}
	}
}

// parseListValues reads `(v, v)` or `((v, w), (v, w))`.
func parseListValues(s *tokenStream) ([][]string, error) {
	if err := s.expectPunct("("); err != nil {
		return nil, err
	}
	var out [][]string
	for {
		if s.isPunct("(") {
			s.next()
			var tuple []string
			for {
				v, err := partitionLiteral(s)
				if err != nil {
					return nil, err
				}
				tuple = append(tuple, v)
				if s.acceptPunct(")") {
					break
				}
				if err := s.expectPunct(","); err != nil {
					return nil, err
				}
			}
			out = append(out, tuple)
		} else {
			v, err := partitionLiteral(s)
			if err != nil {
				return nil, err
			}
			out = append(out, []string{v})
		}
		if s.acceptPunct(")") {
			return out, nil
		}
		if err := s.expectPunct(","); err != nil {
			return nil, err
		}
	}
}

// partitionLiteral accepts a quoted value or a bare (possibly negative) number.
func partitionLiteral(s *tokenStream) (string, error) {
	t := s.next()
	switch {
	case t.Kind == TokString || t.Kind == TokNumber:
		return t.Text(), nil
	case t.Kind == TokPunct && t.Text() == "-":
		n := s.next()
		if n.Kind != TokNumber {
			return "", s.errorf("expected a number after '-'")
		}
		return "-" + n.Text(), nil
	}
	return "", s.errorf("expected a partition value")
}

// ParsePartitionItem parses one `PARTITION p VALUES ...` definition, as
// ALTER TABLE ... ADD PARTITION carries it.
func ParsePartitionItem(text, kind string) (PartitionItemDef, error) {
	toks, err := lexDDL(text)
	if err != nil {
		return PartitionItemDef{}, fmt.Errorf("parse partition: %w", err)
	}
	s := &tokenStream{toks: toks}
	item, err := parsePartitionItem(s, kind)
	if err != nil {
		return item, err
	}
	s.acceptPunct(";")
	if s.peek().Kind != tokEOF {
		return item, s.errorf("unexpected trailing text")
	}
	return item, nil
}
