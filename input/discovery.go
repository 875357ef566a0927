package input

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// candidates lists the tables the selection names or matches, as the FE
// shows them now. A named table that does not exist is left out, so that a
// dropped one leaves the stream.
func (co *coordinator) candidates(ctx context.Context) ([]tableName, error) {
	sel := &co.conf.Selection
	var dbs []string
	if sel.byPattern() {
		all, err := co.c.rest.ListDatabases(ctx)
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
		tables, err := co.listTables(ctx, db)
		if err != nil {
			return nil, err
		}
		for _, name := range tables {
			t := newTableName(db, name)
			if sel.byPattern() && sel.matches(t) || !sel.byPattern() && slices.Contains(sel.fixed, t) {
				out = append(out, t)
			}
		}
	}
	slices.SortFunc(out, func(a, b tableName) int { return strings.Compare(a.key, b.key) })
	return out, nil
}

// listTables lists db's tables; a database that vanished has none.
func (co *coordinator) listTables(ctx context.Context, db string) ([]string, error) {
	tables, err := co.c.rest.ListTables(ctx, db)
	if err == nil {
		return tables, nil
	}
	if all, lerr := co.c.rest.ListDatabases(ctx); lerr == nil && !slices.Contains(all, db) {
		return nil, nil
	}
	return nil, err
}

// admit reads a table's facts and says whether this scan mode can follow
// it. problem is the reason it cannot; err a failure to find out.
func (co *coordinator) admit(ctx context.Context, name tableName) (t *tableInfo, problem string, err error) {
	t = &tableInfo{name: name, c: co.c}
	props, err := t.properties(ctx, true)
	if err != nil {
		if !co.conf.HasBinlogPhase() {
			// A snapshot needs them only for DATETIME precision; without
			// them the Arrow unit decides the digits.
			co.log.Warnf("Reading SHOW CREATE TABLE of %s failed, DATETIME values get the digits of their Arrow unit: %v", name.key, err)
			return t, "", nil
		}
		return nil, "", err
	}
	if co.conf.HasBinlogPhase() {
		if p := binlogProblem(co.conf, name.key, props); p != "" {
			return nil, p, nil
		}
	}
	return t, "", nil
}

// discovery is the outcome of comparing the listed tables with the
// followed ones.
type discovery struct {
	added, removed, recreated, skipped []string
}

func (d *discovery) changed() bool {
	return len(d.added)+len(d.removed)+len(d.recreated)+len(d.skipped) > 0
}

func (d *discovery) String() string {
	return fmt.Sprintf("added %v, removed %v, recreated %v, skipped %v", d.added, d.removed, d.recreated, d.skipped)
}

// discover lists the tables again and applies what changed: new tables
// join, dropped ones leave, recreated ones start over as new tables. A
// failed listing is retried at the next discovery.
func (co *coordinator) discover(ctx context.Context) error {
	cands, err := co.candidates(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		co.log.Warnf("Listing tables for discovery failed, trying again in %s: %v", co.conf.DiscoveryInterval, err)
		return nil
	}
	var d discovery
	listed := map[string]bool{}
	for _, name := range cands {
		listed[name.key] = true
		if err := co.discoverOne(ctx, name, &d); err != nil {
			return err
		}
	}
	for _, key := range co.followedKeys() {
		if !listed[key] {
			co.log.Warnf("Table %s was dropped: it leaves the stream and the checkpoint", key)
			if err := co.removeTable(ctx, key); err != nil {
				return err
			}
			d.removed = append(d.removed, key)
		}
	}
	co.refreshTableGauges()
	if d.changed() {
		co.log.Infof("Table discovery: %s", &d)
	}
	return nil
}

// discoverOne handles one listed table: a known one is checked for having
// been recreated, an unknown one admitted or skipped.
func (co *coordinator) discoverOne(ctx context.Context, name tableName, d *discovery) error {
	if t := co.table(name.key); t != nil {
		recreated, err := co.checkIdentity(ctx, t)
		if err != nil || !recreated {
			return err
		}
		co.log.Warnf("Table %s was dropped and created again (all its tablets are new): it restarts as a new table", name.key)
		if err := co.removeTable(ctx, name.key); err != nil {
			return err
		}
		d.recreated = append(d.recreated, name.key)
	}
	t, problem, err := co.admit(ctx, name)
	switch {
	case err != nil:
		co.log.Warnf("Checking table %s failed, trying again at the next discovery: %v", name.key, err)
		return nil
	case problem != "":
		if co.noteSkipped(name.key, problem) {
			d.skipped = append(d.skipped, name.key)
		}
		return nil
	}
	co.clearSkipped(name.key)
	if err := co.addTable(ctx, t); err != nil {
		return err
	}
	if !slices.Contains(d.recreated, name.key) {
		d.added = append(d.added, name.key)
	}
	return nil
}

// checkIdentity compares the table's tablets with the highest one seen and
// records the new highest.
func (co *coordinator) checkIdentity(ctx context.Context, t *tableInfo) (recreated bool, err error) {
	lo, hi, err := t.tabletRange(ctx)
	if err != nil {
		co.log.Warnf("Checking the tablets of %s failed, trying again at the next discovery: %v", t.name.key, err)
		return false, nil
	}
	var seen int64
	co.em.view(func(st *checkpoint.State) {
		if ts := st.Tables[t.name.key]; ts != nil {
			seen = ts.MaxTablet
		}
	})
	if seen > 0 && lo > seen {
		return true, nil
	}
	if hi > seen {
		return false, co.em.emit(ctx, nil, func(st *checkpoint.State) {
			if ts := st.Tables[t.name.key]; ts != nil {
				ts.MaxTablet = hi
			}
		})
	}
	return false, nil
}
