package sqlengine

import (
	"github.com/dolthub/go-mysql-server/sql"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// dorisStatement answers the statements the simulator handles itself
// instead of GMS: Doris DDL, Doris SHOW commands, USE and Doris session
// variables. handled is false for everything GMS should run.
func dorisStatement(s *Session, gctx *sql.Context, body string) (*Result, bool, error) {
	c, err := newCursor(body)
	if err != nil {
		return nil, true, errSyntax("%v", err)
	}
	switch {
	case c.accept("create", "table"), c.accept("create", "external", "table"):
		r, err := createTable(s, body)
		return r, true, err
	case c.accept("create", "database"), c.accept("create", "schema"):
		r, err := createDatabase(s, c)
		return r, true, err
	case c.accept("drop", "database"), c.accept("drop", "schema"):
		r, err := dropDatabase(s, gctx, c)
		return r, true, err
	case c.accept("drop", "table"):
		r, err := dropTable(s, c)
		return r, true, err
	case c.accept("truncate"):
		c.accept("table")
		r, err := truncateTable(s, c)
		return r, true, err
	case c.accept("alter", "table"):
		r, err := alterTable(s, gctx, c)
		return r, true, err
	case c.accept("show", "global", "variables"):
		r, err := showGlobalVariables(s, gctx, body)
		return r, true, err
	case c.accept("show"):
		return show(s, c)
	case c.accept("use"):
		r, err := use(s, gctx, c)
		return r, true, err
	case c.accept("set", "property"):
		r, err := setProperty(s, c)
		return r, true, err
	case c.accept("set"):
		return set(s, gctx, c)
	}
	return nil, false, nil
}

// qualify fills in the session's current database.
func qualify(s *Session, db string) (string, error) {
	if db != "" {
		return db, nil
	}
	if cur := s.gs.GetCurrentDatabase(); cur != "" {
		return cur, nil
	}
	return "", &storage.Error{Code: 1046, Message: "No database selected"}
}

func createTable(s *Session, body string) (*Result, error) {
	ct, err := storage.ParseCreateTable(body)
	if err != nil {
		return nil, err
	}
	db, err := qualify(s, ct.DB)
	if err != nil {
		return nil, err
	}
	if err := s.eng.store.CreateTable(db, ct.Def, ct.IfNotExists); err != nil {
		return nil, err
	}
	return okResult(0), nil
}

func createDatabase(s *Session, c *cursor) (*Result, error) {
	ifNotExists := c.accept("if", "not", "exists")
	name, ok := c.ident()
	if !ok {
		return nil, errSyntax("Syntax error in CREATE DATABASE near %s", c.near())
	}
	if err := s.eng.store.CreateDatabase(name, ifNotExists); err != nil {
		return nil, err
	}
	return okResult(0), nil
}

func dropDatabase(s *Session, gctx *sql.Context, c *cursor) (*Result, error) {
	ifExists := c.accept("if", "exists")
	name, ok := c.ident()
	if !ok {
		return nil, errSyntax("Syntax error in DROP DATABASE near %s", c.near())
	}
	if err := s.eng.store.DropDatabase(name, ifExists); err != nil {
		return nil, err
	}
	if s.gs.GetCurrentDatabase() == name {
		gctx.SetCurrentDatabase("")
	}
	return okResult(0), nil
}

func dropTable(s *Session, c *cursor) (*Result, error) {
	ifExists := c.accept("if", "exists")
	db, table, ok := c.tableName()
	if !ok {
		return nil, errSyntax("Syntax error in DROP TABLE near %s", c.near())
	}
	db, err := qualify(s, db)
	if err != nil {
		return nil, err
	}
	if err := s.eng.store.DropTable(db, table, ifExists); err != nil {
		return nil, err
	}
	return okResult(0), nil
}

func truncateTable(s *Session, c *cursor) (*Result, error) {
	db, table, ok := c.tableName()
	if !ok {
		return nil, errSyntax("Syntax error in TRUNCATE TABLE near %s", c.near())
	}
	db, err := qualify(s, db)
	if err != nil {
		return nil, err
	}
	if err := s.eng.store.TruncateTable(db, table); err != nil {
		return nil, err
	}
	return okResult(0), nil
}

func use(s *Session, gctx *sql.Context, c *cursor) (*Result, error) {
	name, ok := c.ident()
	if !ok {
		return nil, errSyntax("Syntax error in USE near %s", c.near())
	}
	db, found := s.eng.prov.lookup(name)
	if !found {
		return nil, &storage.Error{Code: 1049, Message: "Unknown database '" + name + "'"}
	}
	gctx.SetCurrentDatabase(db.name)
	return okResult(0), nil
}
