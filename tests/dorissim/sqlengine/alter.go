package sqlengine

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// alterTable handles the light schema changes Doris allows on row binlog
// tables: ADD COLUMN, DROP COLUMN, ADD/DROP PARTITION and SET properties;
// and MODIFY COLUMN on tables without one.
func alterTable(s *Session, gctx *sql.Context, c *cursor) (*Result, error) {
	db, table, ok := c.tableName()
	if !ok {
		return nil, errSyntax("Syntax error in ALTER TABLE near %s", c.near())
	}
	db, err := qualify(s, db)
	if err != nil {
		return nil, err
	}
	switch {
	case c.accept("add", "column"):
		return addColumn(s, gctx, db, table, c)
	case c.accept("modify", "column"):
		col, err := parseColumnDef(c)
		if err != nil {
			return nil, err
		}
		return okOrErr(s.eng.store.ModifyColumn(db, table, col))
	case c.accept("drop", "column"):
		name, ok := c.ident()
		if !ok {
			return nil, errSyntax("Syntax error in DROP COLUMN near %s", c.near())
		}
		return okOrErr(s.eng.store.DropColumn(db, table, name))
	case c.peek(0).IsWord("add") && c.peek(1).IsWord("partition"):
		c.accept("add")
		return addPartition(s, db, table, c.rest())
	case c.accept("drop", "partition"):
		return dropPartition(s, db, table, c)
	case c.accept("set"):
		props, err := parseProperties(c)
		if err != nil {
			return nil, err
		}
		return okOrErr(s.eng.store.SetProperties(db, table, props))
	}
	info, err := s.eng.store.Table(db, table)
	if err != nil {
		return nil, err
	}
	if info.BinlogEnabled {
		return nil, &storage.Error{Code: storage.CodeGeneric, Message: "Not allowed to perform current operation on Table With binlog<row>"}
	}
	return nil, &storage.Error{Code: storage.CodeGeneric, Message: "Unsupported ALTER TABLE operation: " + c.rest()}
}

func okOrErr(err error) (*Result, error) {
	if err != nil {
		return nil, err
	}
	return okResult(0), nil
}

// parseColumnDef parses `name TYPE [NULL|NOT NULL] [DEFAULT v] [COMMENT 's']`.
func parseColumnDef(c *cursor) (storage.Column, error) {
	name, ok := c.ident()
	if !ok {
		return storage.Column{}, errSyntax("Syntax error in column definition near %s", c.near())
	}
	typeText := typeSpan(c)
	if typeText == "" {
		return storage.Column{}, errSyntax("Syntax error in column definition near %s", c.near())
	}
	typ, err := storage.ParseType(typeText)
	if err != nil {
		return storage.Column{}, err
	}
	col := storage.Column{Name: name, Type: typ, Nullable: true}
	for !c.done() {
		switch {
		case c.accept("not", "null"):
			col.Nullable = false
		case c.accept("null"):
			col.Nullable = true
		case c.accept("comment"):
			text, ok := c.stringLit()
			if !ok {
				return storage.Column{}, errSyntax("Syntax error in COMMENT near %s", c.near())
			}
			col.Comment = text
		case c.accept("default"):
			d, err := parseDefaultClause(c)
			if err != nil {
				return storage.Column{}, err
			}
			col.Default = d
		default:
			c.i++
		}
	}
	return col, nil
}

// typeSpan consumes the source text of a type such as DECIMAL(10, 2) or
// MAP<STRING, ARRAY<INT>>: a word plus one balanced (...) or <...> group.
func typeSpan(c *cursor) string {
	t := c.peek(0)
	if t.Kind != storage.TokWord {
		return ""
	}
	start, end := t.Start, t.End
	c.i++
	if c.peek(0).IsPunct("(") || c.peek(0).IsPunct("<") {
		depth := 0
		for !c.done() {
			t := c.peek(0)
			switch {
			case t.IsPunct("("), t.IsPunct("<"):
				depth++
			case t.IsPunct(")"), t.IsPunct(">"):
				depth--
			}
			end = t.End
			c.i++
			if depth == 0 {
				break
			}
		}
	}
	return strings.TrimSpace(c.src[start:end])
}

// parseProperties parses `("k" = "v", ...)`.
func parseProperties(c *cursor) (map[string]string, error) {
	if !c.acceptPunct("(") {
		return nil, errSyntax("Syntax error in properties near %s", c.near())
	}
	props := map[string]string{}
	for !c.acceptPunct(")") {
		if len(props) > 0 && !c.acceptPunct(",") {
			return nil, errSyntax("Syntax error in properties near %s", c.near())
		}
		k, ok1 := c.stringLit()
		eq := c.acceptPunct("=")
		v, ok2 := c.stringLit()
		if !ok1 || !eq || !ok2 {
			return nil, errSyntax("Syntax error in properties near %s", c.near())
		}
		props[k] = v
	}
	return props, nil
}
