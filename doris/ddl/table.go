package ddl

import (
	"errors"
	"fmt"
	"strings"
)

// Model is the key model of a table to create.
type Model int

// Key models. A created table is either keyed (UNIQUE KEY, merge-on-write,
// hashed on its key) or not (DUPLICATE KEY, distributed at random).
const (
	Duplicate Model = iota
	Unique
)

func (m Model) String() string {
	if m == Unique {
		return "UNIQUE"
	}
	return "DUPLICATE"
}

// Table describes a table to create.
type Table struct {
	Model Model
	// Keys are the key columns in key order: the row identity of a UNIQUE
	// KEY table, the sort key of a DUPLICATE KEY one (empty: Doris's
	// default sort key).
	Keys    []string
	Columns []Column
	Comment string
}

// Column is one column of a table to create.
type Column struct {
	Name     string
	Type     string // Doris type text, e.g. VARCHAR(32), decimal(10,2), ARRAY<INT>
	Nullable bool
	Comment  string
}

// column returns the column named name (Doris compares names without case).
func (t *Table) column(name string) (int, bool) {
	for i, c := range t.Columns {
		if strings.EqualFold(c.Name, name) {
			return i, true
		}
	}
	return -1, false
}

// ordered returns the columns with the keys first, in key order, as Doris
// requires (key columns are an ordered prefix of the schema), the others
// in their own order.
func (t *Table) ordered() ([]Column, error) {
	out := make([]Column, 0, len(t.Columns))
	used := make([]bool, len(t.Columns))
	for _, k := range t.Keys {
		i, ok := t.column(k)
		if !ok {
			return nil, fmt.Errorf("key column %q is not among the columns", k)
		}
		if used[i] {
			return nil, fmt.Errorf("key column %q is listed twice", k)
		}
		used[i] = true
		out = append(out, t.Columns[i])
	}
	for i, c := range t.Columns {
		if !used[i] {
			out = append(out, c)
		}
	}
	return out, nil
}

// validate refuses what Doris would refuse with a less helpful message, and
// type texts that are not plain type syntax: a type is written into the
// statement as it is, so it must not be able to carry anything else.
func (t *Table) validate() error {
	if len(t.Columns) == 0 {
		return errors.New("no columns")
	}
	seen := map[string]bool{}
	for _, c := range t.Columns {
		if c.Name == "" {
			return errors.New("a column has no name")
		}
		lc := strings.ToLower(c.Name)
		if seen[lc] {
			return fmt.Errorf("column %q appears twice", c.Name)
		}
		seen[lc] = true
		if strings.HasPrefix(strings.ToUpper(c.Name), "__DORIS_") {
			return fmt.Errorf("column %q: Doris reserves names starting with __DORIS_", c.Name)
		}
		if err := checkTypeText(c.Type); err != nil {
			return fmt.Errorf("column %q: %w", c.Name, err)
		}
	}
	if t.Model == Unique && len(t.Keys) == 0 {
		return errors.New("a UNIQUE KEY table needs key columns")
	}
	return nil
}

// checkTypeText accepts Doris type syntax only: words, numbers and the
// punctuation of type arguments, with balanced brackets.
func checkTypeText(s string) error {
	if s == "" {
		return errors.New("no type")
	}
	depth := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == ' ', c == ',', c == ':':
		case c == '(' || c == '<':
			depth++
		case c == ')' || c == '>':
			depth--
			if depth < 0 {
				return fmt.Errorf("type %q has unbalanced brackets", s)
			}
		default:
			return fmt.Errorf("type %q holds %q, which no Doris type does", s, c)
		}
	}
	if depth != 0 {
		return fmt.Errorf("type %q has unbalanced brackets", s)
	}
	return nil
}
