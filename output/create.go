package output

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/redpanda-data/benthos/v4/public/schema"
	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/doris/ddl"
)

// Metadata keys create_tables describes a target from.
const (
	metaDorisSchema = ddl.MetaKey
	metaSchema      = "schema"
	metaKeyColumns  = "key_columns"
)

// creator creates the targets that do not exist (create_tables) before
// their first load. Each database is listed once for the output's life;
// a target found there, or created, is not looked at again. An existing
// target is never changed: creation is CREATE TABLE IF NOT EXISTS, and an
// "already exists" answer (another pipeline was first) counts as done.
type creator struct {
	fe   *doris.Client
	opts ddl.Options
	log  *service.Logger

	// targets, when the schema check applies, is seeded with the columns
	// of each table created here.
	targets *targetSchemas

	mu     sync.Mutex      // guards ready and dbs
	ready  map[string]bool // targets that exist
	dbs    map[string]*dbState
	create sync.Mutex // one creation at a time, so two batches never race on one target
}

type dbState struct {
	exists bool
	tables map[string]bool // as listed once
}

func newCreator(fe *doris.Client, opts ddl.Options, log *service.Logger) *creator {
	return &creator{fe: fe, opts: opts, log: log, ready: map[string]bool{}, dbs: map[string]*dbState{}}
}

func (c *creator) known(target string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ready[target]
}

// ensure makes p's target exist, creating its database and table from the
// messages' schema when they are missing.
func (c *creator) ensure(ctx context.Context, batch service.MessageBatch, p *part) error {
	if c.known(p.target) {
		return nil
	}
	c.create.Lock()
	defer c.create.Unlock()
	if c.known(p.target) {
		return nil
	}
	db, err := c.database(ctx, p.db)
	if err != nil {
		return fmt.Errorf("create_tables: target %s: %w", p.target, err)
	}
	if !db.tables[p.table] {
		if err := c.createTable(ctx, batch, p, db); err != nil {
			return err
		}
	}
	c.mu.Lock()
	c.ready[p.target] = true
	c.mu.Unlock()
	return nil
}

// database lists name's tables, once.
func (c *creator) database(ctx context.Context, name string) (*dbState, error) {
	c.mu.Lock()
	d := c.dbs[name]
	c.mu.Unlock()
	if d != nil {
		return d, nil
	}
	tables, err := doris.ListTables(ctx, c.fe, name)
	if err != nil {
		return nil, err
	}
	d = &dbState{exists: len(tables) > 0, tables: make(map[string]bool, len(tables))}
	for _, t := range tables {
		d.tables[t] = true
	}
	if !d.exists {
		// No tables: an empty database, or none at all.
		if d.exists, err = databaseExists(ctx, c.fe, name); err != nil {
			return nil, err
		}
	}
	c.mu.Lock()
	c.dbs[name] = d
	c.mu.Unlock()
	return d, nil
}

func databaseExists(ctx context.Context, fe *doris.Client, db string) (bool, error) {
	if err := doris.ValidateLiteral(db); err != nil {
		return false, fmt.Errorf("database name: %w", err)
	}
	res, err := doris.Statement(ctx, fe, "SELECT `SCHEMA_NAME` FROM `information_schema`.`schemata` WHERE `SCHEMA_NAME` = "+doris.QuoteLiteral(db))
	if err != nil {
		return false, fmt.Errorf("check database %s: %w", db, err)
	}
	names, err := doris.FirstColumn(res)
	if err != nil {
		return false, fmt.Errorf("check database %s: %w", db, err)
	}
	return len(names) > 0, nil
}

func (c *creator) createTable(ctx context.Context, batch service.MessageBatch, p *part, db *dbState) error {
	t, from, err := describeTarget(batch, p)
	if err != nil {
		return doris.Permanent(fmt.Errorf("create_tables: target %s does not exist and cannot be created: %w", p.target, err))
	}
	// A generated statement without IF NOT EXISTS: when it succeeds the
	// table has exactly its columns, which seed the schema check (no SHOW
	// CREATE TABLE before the first load); "already exists" means another
	// pipeline or a hand was first, with columns of its own.
	var cols []ddl.Column
	var stmt string
	if c.opts.Template != "" {
		stmt, err = ddl.CreateTableSQL(p.db, p.table, t, c.opts)
	} else {
		stmt, cols, err = ddl.CreateTableNewSQL(p.db, p.table, t, c.opts)
	}
	if err != nil {
		return doris.Permanent(fmt.Errorf("create_tables: target %s from the %s metadata: %w", p.target, from, err))
	}
	if !db.exists {
		if _, err := c.run(ctx, ddl.CreateDatabaseSQL(p.db)); err != nil {
			return fmt.Errorf("create_tables: create database %s for %s: %w", doris.QuoteIdent(p.db), p.target, err)
		}
		db.exists = true
		c.log.Infof("doris_load: created database %s", p.db)
	}
	created, err := c.run(ctx, stmt)
	if err != nil {
		return fmt.Errorf("create_tables: create table %s: %w", p.target, err)
	}
	if created && cols != nil && c.targets != nil {
		c.targets.seed(p, cols, t.Keys)
	}
	c.log.Infof("doris_load: created table %s (%s KEY, %d columns, from the %s metadata)", p.target, t.Model, len(t.Columns), from)
	return nil
}

// run runs a DDL statement; "already exists" is the wanted result, reached
// by another pipeline first, and reported as not created.
func (c *creator) run(ctx context.Context, stmt string) (created bool, err error) {
	_, err = doris.Statement(ctx, c.fe, stmt)
	if err != nil && alreadyExists(err) {
		return false, nil
	}
	return err == nil, err
}

func alreadyExists(err error) bool {
	s := strings.ToLower(err.Error())
	return strings.Contains(s, "already exists") || strings.Contains(s, "database exists")
}

// describeTarget describes the table from the part's latest message that
// carries a schema: doris_schema (a Doris source, exact) before the Common
// `schema` with `key_columns`.
func describeTarget(batch service.MessageBatch, p *part) (*ddl.Table, string, error) {
	for i := len(p.msgs) - 1; i >= 0; i-- {
		m := batch[p.msgs[i]]
		if v, ok := metaValue(m, metaDorisSchema); ok {
			t, err := ddl.FromDescription(v)
			return t, metaDorisSchema, err
		}
		if v, ok := metaValue(m, metaSchema); ok {
			t, err := fromCommonMeta(m, v)
			return t, metaSchema, err
		}
	}
	return nil, "", errors.New("its messages carry no `schema` metadata (nor `doris_schema`) to create it from; create it first, or attach a schema")
}

func fromCommonMeta(m *service.Message, v any) (*ddl.Table, error) {
	root, err := schema.ParseFromAny(v)
	if err != nil {
		return nil, fmt.Errorf("schema metadata: %w", err)
	}
	var keys []string
	if kv, ok := metaValue(m, metaKeyColumns); ok {
		if keys, err = nameList(kv); err != nil {
			return nil, fmt.Errorf("key_columns metadata: %w", err)
		}
	}
	t, err := ddl.FromCommon(root, keys)
	if err != nil {
		return nil, fmt.Errorf("schema metadata: %w", err)
	}
	return t, nil
}

// metaValue reads a structured metadata value, unwrapped from the
// immutable form the inputs share it in.
func metaValue(m *service.Message, key string) (any, bool) {
	v, ok := m.MetaGetImmut(key)
	if !ok {
		return nil, false
	}
	switch iv := v.(type) {
	case service.ImmutableAny:
		return iv.V, true
	case interface{ Copy() any }:
		// Another input's immutable value: read through a copy.
		return iv.Copy(), true
	}
	return v, true
}

func nameList(v any) ([]string, error) {
	switch l := v.(type) {
	case []string:
		return l, nil
	case []any:
		out := make([]string, len(l))
		for i, e := range l {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("entry %d is %T, not a column name", i, e)
			}
			out[i] = s
		}
		return out, nil
	}
	return nil, fmt.Errorf("%T is not a list of column names", v)
}

func newCreatorClient(cc doris.ClientConfig, conf createConfig, log *service.Logger) (*creator, error) {
	fe, err := doris.NewClient(cc)
	if err != nil {
		return nil, err
	}
	return newCreator(fe, conf.opts, log), nil
}
