package storage

import (
	"fmt"
	"strings"
)

// Column definitions inside CREATE TABLE (...).

func parseColumnList(s *tokenStream, def *TableDef) error {
	if err := s.expectPunct("("); err != nil {
		return err
	}
	for {
		if s.isKeyword("INDEX") {
			// Inverted/bitmap index definitions do not affect storage here.
			s.next()
			if _, err := s.ident(); err != nil {
				return err
			}
			if err := skipIndexDef(s); err != nil {
				return err
			}
		} else {
			col, err := parseColumn(s)
			if err != nil {
				return err
			}
			def.Columns = append(def.Columns, col)
		}
		if s.acceptPunct(")") {
			return nil
		}
		if err := s.expectPunct(","); err != nil {
			return err
		}
	}
}

func skipIndexDef(s *tokenStream) error {
	if err := s.skipBalanced(); err != nil {
		return err
	}
	for !s.isPunct(",") && !s.isPunct(")") {
		if s.peek().Kind == tokEOF {
			return s.errorf("unterminated INDEX definition")
		}
		if s.isPunct("(") {
			if err := s.skipBalanced(); err != nil {
				return err
			}
			continue
		}
		s.next()
	}
	return nil
}

func parseColumn(s *tokenStream) (Column, error) {
	name, err := s.ident()
	if err != nil {
		return Column{}, err
	}
	typeText, err := collectTypeText(s)
	if err != nil {
		return Column{}, err
	}
	t, err := ParseType(typeText)
	if err != nil {
		return Column{}, fmt.Errorf("column %s: %w", name, err)
	}
	col := Column{Name: name, Type: t, Nullable: true}
	if err := parseColumnAttrs(s, &col); err != nil {
		return Column{}, err
	}
	return col, nil
}

// collectTypeText re-assembles the tokens of a type, which may nest <...>
// and (...), into text for ParseType.
func collectTypeText(s *tokenStream) (string, error) {
	var sb strings.Builder
	t := s.next()
	if t.Kind != TokWord {
		return "", s.errorf("expected a column type")
	}
	sb.WriteString(t.Text())
	depth := 0
	for {
		switch {
		case s.isPunct("<") || s.isPunct("("):
			depth++
		case (s.isPunct(">") || s.isPunct(")")) && depth > 0:
			depth--
		case depth == 0:
			return sb.String(), nil
		}
		t := s.next()
		if t.Kind == tokEOF {
			return "", s.errorf("unterminated column type")
		}
		if t.Kind == TokQuotedIdent {
			sb.WriteString("`" + t.Text() + "`")
		} else {
			sb.WriteString(" " + t.Text())
		}
		if depth == 0 {
			return sb.String(), nil
		}
	}
}

var aggregationWords = map[string]bool{
	"SUM": true, "MAX": true, "MIN": true, "REPLACE": true, "REPLACE_IF_NOT_NULL": true,
	"HLL_UNION": true, "BITMAP_UNION": true, "QUANTILE_UNION": true, "GENERIC": true,
}

func parseColumnAttrs(s *tokenStream, col *Column) error {
	for !s.isPunct(",") && !s.isPunct(")") {
		switch {
		case s.acceptKeywords("NOT", "NULL"):
			col.Nullable = false
		case s.acceptKeywords("NULL"):
			col.Nullable = true
		case s.acceptKeywords("DEFAULT"):
			if err := parseDefault(s, col); err != nil {
				return err
			}
		case s.acceptKeywords("COMMENT"):
			c, err := s.stringLit()
			if err != nil {
				return err
			}
			col.Comment = c
		case s.acceptKeywords("AUTO_INCREMENT"):
			col.AutoIncrement = true
			if s.isPunct("(") {
				if err := s.skipBalanced(); err != nil {
					return err
				}
			}
		case s.peek().Kind == TokWord && aggregationWords[strings.ToUpper(s.peek().Text())]:
			s.next()
		case s.acceptKeywords("ON", "UPDATE"):
			if _, err := parseDefaultText(s); err != nil {
				return err
			}
		default:
			return s.errorf("unexpected column attribute")
		}
	}
	return nil
}

func parseDefault(s *tokenStream, col *Column) error {
	text, err := parseDefaultText(s)
	if err != nil {
		return err
	}
	if text != nil {
		col.Default = text
	}
	return nil
}

// parseDefaultText returns nil for DEFAULT NULL.
func parseDefaultText(s *tokenStream) (*string, error) {
	t := s.next()
	switch {
	case t.Kind == TokString || t.Kind == TokNumber:
		v := t.Text()
		return &v, nil
	case t.Kind == TokPunct && t.Text() == "-":
		n := s.next()
		v := "-" + n.Text()
		return &v, nil
	case t.Kind == TokWord && strings.EqualFold(t.Text(), "NULL"):
		return nil, nil
	case t.Kind == TokWord:
		v := strings.ToUpper(t.Text())
		if s.acceptPunct("(") {
			// CURRENT_TIMESTAMP(3): the precision decides the default's digits.
			arg := ""
			if s.peek().Kind == TokNumber {
				arg = s.next().Text()
			}
			if err := s.expectPunct(")"); err != nil {
				return nil, err
			}
			v += "(" + arg + ")"
		}
		return &v, nil
	}
	return nil, s.errorf("invalid DEFAULT value")
}
