package input

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/schemameta"
)

// tableInfo is what a run knows of one followed table: its name and its
// SHOW CREATE TABLE facts, re-read at most every five minutes so that an
// ALTER of binlog.ttl_seconds is noticed.
type tableInfo struct {
	name tableName
	c    *conn
	m    *metrics // told the TTL of every DDL read; nil in some tests

	mu         sync.Mutex
	props      *doris.TableProperties
	propAt     time.Time
	partitions map[int64]string // id -> name at the last look; nil before it
	meta       *schemameta.Meta // schema metadata built from metaOf
	metaOf     *doris.TableProperties

	// signal: the signal table (signal_table), read whole by the chain
	// without read_field and binlog_filter, which are the data's.
	signal bool
	// snapFilter is the condition of a signalled snapshot, read by the
	// snapshot's split queries; "" for none.
	snapFilter string
}

const propsRefreshInterval = 5 * time.Minute

// refreshProperties reads the DDL now, failing rather than keeping the old.
func (t *tableInfo) refreshProperties(ctx context.Context) (*doris.TableProperties, error) {
	fresh, err := doris.FetchTableProperties(ctx, t.c.rest, t.name.db, t.name.table)
	if err != nil {
		return nil, fmt.Errorf("table properties of %s: %w", t.name.key, err)
	}
	t.mu.Lock()
	t.props, t.propAt = fresh, time.Now()
	t.mu.Unlock()
	if t.m != nil {
		t.m.headroom.noteTTL(t.name.key, fresh.TTLSeconds)
	}
	return fresh, nil
}

// properties returns the DDL facts, read again when refresh is set or
// they are older than propsRefreshInterval; a failed re-read keeps the old.
func (t *tableInfo) properties(ctx context.Context, refresh bool) (*doris.TableProperties, error) {
	t.mu.Lock()
	props, at := t.props, t.propAt
	t.mu.Unlock()
	if props != nil && !refresh && time.Since(at) < propsRefreshInterval {
		return props, nil
	}
	fresh, err := t.refreshProperties(ctx)
	if err != nil && props != nil {
		t.c.log.Warnf("Refreshing table properties of %s failed, keeping the previous ones: %v", t.name.key, err)
		return props, nil
	}
	return fresh, err
}

// datetimePrecision gives the converter each DATETIME column's declared
// fractional digits, which the Arrow unit alone cannot tell.
func (t *tableInfo) datetimePrecision() map[string]int {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.props == nil {
		return nil
	}
	return t.props.DatetimePrecision
}

// binlogProblem says why @incr cannot follow a table, or "" when it can.
// The texts carry the fix.
func binlogProblem(conf *Config, key string, props *doris.TableProperties) string {
	switch {
	case !props.BinlogEnabled || props.BinlogFormat != "ROW":
		return fmt.Sprintf("table %s has no row binlog (INCR query requires ROW binlog enabled on base table.): "+
			"create it with PROPERTIES (\"binlog.enable\" = \"true\", \"binlog.format\" = \"ROW\"), or use scan_mode: snapshot", key)
	case props.KeysType != "DUP_KEYS" && !(props.KeysType == "UNIQUE_KEYS" && props.MergeOnWrite):
		return fmt.Sprintf("table %s is a %s table; row binlog is read only from DUPLICATE KEY and merge-on-write UNIQUE KEY tables", key, props.KeysType)
	case conf.IncrementType == "MIN_DELTA" && props.KeysType == "UNIQUE_KEYS" && !props.NeedHistoricalValue:
		return fmt.Sprintf("binlog_increment_type min_delta needs before-images, but table %s has binlog.need_historical_value=false: "+
			"use binlog_increment_type detail or append_only, or create the table with \"binlog.need_historical_value\" = \"true\"", key)
	}
	return ""
}

// tabletRange plans a full read of the table and returns its lowest and
// highest tablet ids. Doris ids only grow, so a table whose tablets are all
// newer than the highest one seen before was dropped and created again.
func (t *tableInfo) tabletRange(ctx context.Context) (lo, hi int64, err error) {
	sql := doris.SnapshotSQL(t.name.db, t.name.table, nil, nil, "")
	qp, err := doris.PlanQuery(ctx, t.c.rest, t.name.db, t.name.table, sql)
	if err != nil {
		return 0, 0, fmt.Errorf("query plan for %s: %w", t.name.key, err)
	}
	ids := qp.TabletIDs()
	if len(ids) == 0 {
		return 0, 0, nil
	}
	return slices.Min(ids), slices.Max(ids), nil
}
