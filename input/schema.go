package input

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/schemameta"
)

// schemaFor returns the schema metadata that describes a result with
// columns rs. Doris allows light ADD and DROP COLUMN on row-binlog tables,
// so when a result's columns differ from the known schema the table's DDL
// is read again, the change logged, and the new schema used from this
// result on. A result that matches no schema the input can read is an
// error naming the table and the columns, never a guess.
func (t *tableInfo) schemaFor(ctx context.Context, selected []string, rs *arrow.Schema) (*schemameta.Meta, error) {
	names := make([]string, rs.NumFields())
	for i, f := range rs.Fields() {
		names[i] = f.Name
	}
	meta, err := t.schemaMeta(ctx, selected, false)
	if err != nil || meta == nil {
		return meta, err
	}
	added, removed := meta.Diff(names)
	if len(added)+len(removed) == 0 {
		return meta, nil
	}
	fresh, err := t.schemaMeta(ctx, selected, true)
	if err != nil {
		return nil, fmt.Errorf("schema of %s changed (columns added %v, removed %v) and could not be read again: %w", t.name.key, added, removed, err)
	}
	if a, r := fresh.Diff(names); len(a)+len(r) > 0 {
		return nil, doris.Permanent(fmt.Errorf("the columns of a result of %s (added %v, missing %v) match neither its known schema nor its current DDL", t.name.key, a, r))
	}
	t.c.log.Infof("Schema of %s changed: columns added %v, removed %v; messages carry the new schema (fingerprint %s) from here on",
		t.name.key, added, removed, fresh.Fingerprint())
	return fresh, nil
}

// schemaMeta builds (once per DDL read) the table's schema metadata;
// refresh reads the DDL again. Without a DDL (a snapshot whose SHOW CREATE
// TABLE failed) there is none.
func (t *tableInfo) schemaMeta(ctx context.Context, selected []string, refresh bool) (*schemameta.Meta, error) {
	if refresh {
		if _, err := t.refreshProperties(ctx); err != nil {
			return nil, err
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.props == nil {
		return nil, nil
	}
	if t.meta == nil || t.metaOf != t.props {
		meta, err := schemameta.New(t.name.db, t.name.table, t.props, selected)
		if err != nil {
			return nil, err
		}
		t.meta, t.metaOf = meta, t.props
	}
	return t.meta, nil
}
