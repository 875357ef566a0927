package input

import (
	"context"
	"slices"
	"strings"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

// catalog answers what the FE holds: which tables the selection names or
// matches, and whether this scan mode can follow one.
type catalog struct {
	conf *Config
	c    *conn
	m    *metrics
	log  *service.Logger
}

// candidates lists the tables the selection names or matches, as the FE
// shows them now. A named table that does not exist is left out, so that a
// dropped one leaves the stream.
func (cat *catalog) candidates(ctx context.Context) ([]tableName, error) {
	sel := &cat.conf.Selection
	var dbs []string
	if sel.byPattern() {
		all, err := doris.ListDatabases(ctx, cat.c.rest)
		if err != nil {
			return nil, err
		}
		dbs = all
	} else {
		for _, t := range sel.fixed {
			if !slices.Contains(dbs, t.db) {
				dbs = append(dbs, t.db)
			}
		}
	}
	var out []tableName
	for _, db := range dbs {
		tables, err := cat.listTables(ctx, db)
		if err != nil {
			return nil, err
		}
		for _, name := range tables {
			t := newTableName(db, name)
			if t.key == cat.conf.SignalTable {
				continue // read by the chain for its signals, never as data
			}
			if sel.byPattern() && sel.matches(t) || !sel.byPattern() && slices.Contains(sel.fixed, t) {
				out = append(out, t)
			}
		}
	}
	slices.SortFunc(out, func(a, b tableName) int { return strings.Compare(a.key, b.key) })
	return out, nil
}

// listTables lists db's tables; a database that vanished has none.
func (cat *catalog) listTables(ctx context.Context, db string) ([]string, error) {
	tables, err := doris.ListTables(ctx, cat.c.rest, db)
	if err == nil {
		return tables, nil
	}
	if all, lerr := doris.ListDatabases(ctx, cat.c.rest); lerr == nil && !slices.Contains(all, db) {
		return nil, nil
	}
	return nil, err
}

// admit reads a table's facts and says whether this scan mode can follow
// it. problem is the reason it cannot; err a failure to find out.
func (cat *catalog) admit(ctx context.Context, name tableName) (t *tableInfo, problem string, err error) {
	t = &tableInfo{name: name, c: cat.c, m: cat.m}
	props, err := t.properties(ctx, true)
	if err != nil {
		if !cat.conf.HasBinlogPhase() {
			// A snapshot needs them only for DATETIME precision; without
			// them the Arrow unit decides the digits.
			cat.log.Warnf("Reading SHOW CREATE TABLE of %s failed, DATETIME values get the digits of their Arrow unit: %v", name.key, err)
			return t, "", nil
		}
		return nil, "", err
	}
	if cat.conf.HasBinlogPhase() {
		if p := binlogProblem(cat.conf, name.key, props); p != "" {
			return nil, p, nil
		}
	}
	return t, "", nil
}
