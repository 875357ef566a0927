package input

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/input/flight"
	"github.com/rpconnect-doris/rpconnect-doris/input/idle"
	"github.com/rpconnect-doris/rpconnect-doris/input/windowplan"
)

// idleWindows applies the idle-table rule (package idle,
// docs/idle-tables.md) to the chain's windows: once per database per
// poll it reads the partitions' versions, then the Doris time again as
// the snapshot's fence, and leaves out of the window's read every table
// whose partitions did not move since a snapshot fenced below the
// window's start. Wherever the rule cannot be applied (the query fails,
// the columns are missing, cloud mode) the tables are read, as without
// the rule, and the log says so once.
type idleWindows struct {
	conf  *Config
	log   *service.Logger
	c     *conn
	rule  *idle.Rule
	fence func(ctx context.Context) (int64, error) // a fresh TSO's physical ms

	off          string          // why the rule is off for the run; "" while on
	failedBefore bool            // a version query failed this run (warned once)
	absentNoted  map[string]bool // databases whose followed tables the answer left out (noted once)
}

func newIdleWindows(conf *Config, log *service.Logger, c *conn) *idleWindows {
	iw := &idleWindows{conf: conf, log: log, c: c, rule: idle.New(), absentNoted: map[string]bool{}}
	iw.fence = func(ctx context.Context) (int64, error) {
		info, err := doris.CurrentTSO(ctx, c.rest)
		return info.PhysicalMs, err
	}
	return iw
}

// plan splits the tables of window w, whose end was just taken from the
// Doris time, into those to read and those to skip. It reads one version
// snapshot per database, then the fence, and records the snapshots for the
// windows to come. It never fails: without a usable snapshot a table is
// read.
func (iw *idleWindows) plan(ctx context.Context, tables []*tableInfo, w windowplan.Window) (read, skip []*tableInfo) {
	if iw == nil || iw.off != "" || len(tables) == 0 {
		return tables, nil
	}
	var dbs []string
	for _, t := range tables {
		if !containsString(dbs, t.name.db) {
			dbs = append(dbs, t.name.db)
		}
	}
	ends := map[string]*idle.Snapshot{}
	for _, db := range dbs {
		s, err := iw.snapshot(ctx, db)
		if err != nil {
			if iw.noteFailure(ctx, db, err) {
				return tables, nil // off for the run
			}
			continue
		}
		ends[db] = s
	}
	if len(ends) == 0 {
		return tables, nil
	}
	if fence, err := iw.fence(ctx); err == nil {
		for _, s := range ends {
			s.FenceMs = fence
		}
	} else {
		iw.log.Debugf("Reading the Doris time after the partition versions failed, so they cannot start a later window: %v", err)
	}
	names := make([]windowplan.Table, len(tables))
	for i, t := range tables {
		names[i] = windowplan.Table{DB: t.name.db, Name: t.name.table}
	}
	isIdle := windowplan.SkipIdle(iw.rule, w, names, ends)
	for i, t := range tables {
		if isIdle[i] {
			skip = append(skip, t)
		} else {
			read = append(read, t)
		}
		if s := ends[t.name.db]; s != nil && len(s.Tables[t.name.table]) == 0 && !iw.absentNoted[t.name.db] {
			iw.absentNoted[t.name.db] = true
			iw.log.Infof("information_schema.partitions lists no partition of followed table %s, so it is read in every window "+
				"(a table just dropped, or one the user lacks SHOW privilege on, is left out); said once per database", t.name.key)
		}
	}
	return read, skip
}

// windowTables is the tables window w reads: every streaming table, less
// those the rule finds idle. now is the Doris time w's end was just taken
// from, nil when the end was planned before (a restart): then every table
// is read, as there is no snapshot read after the end was chosen. A
// skipped table still gets the retention check that every read attempt
// runs first (guardExpiry), with the same outcome: a fatal expiry stops
// the input, an accepted gap is counted and logged; when the check cannot
// run, the table is read after all, so that the read's own retries decide.
func (ch *chain) windowTables(ctx context.Context, w windowplan.Window, now *windowplan.Bound) ([]*tableInfo, error) {
	co := ch.co
	tables := co.phaseTables(checkpoint.PhaseBinlog)
	if now == nil || co.idle == nil {
		return tables, nil
	}
	read, skip := co.idle.plan(ctx, tables, w)
	for _, t := range skip {
		if _, err := co.wr.guardExpiry(ctx, t, w, now, nil); err != nil {
			if isFatal(err) || ctx.Err() != nil {
				return nil, err
			}
			read = append(read, t)
		}
	}
	if len(skip) > 0 {
		co.log.Debugf("Binlog window [%s, %s): %d table(s) read, %d idle table(s) skipped", w.Start, w.End, len(read), len(tables)-len(read))
	}
	co.m.idleSkipped(len(tables) - len(read))
	return read, nil
}

// noteFailure logs a failed version query of db once and tells whether
// the rule is off for the rest of the run.
func (iw *idleWindows) noteFailure(ctx context.Context, db string, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	var cloud *idle.ErrCloudMode
	switch {
	case errors.As(err, &cloud):
		iw.off = "cloud mode"
		iw.log.Warnf("Idle tables are read in every window from now on: %v; cloud mode keeps no committed version in the FE, "+
			"so whether a table changed cannot be told (skip_idle_tables has no effect here)", err)
		return true
	case errors.Is(err, errVersionColumnsMissing):
		iw.off = "columns missing"
		iw.log.Warnf("Idle tables are read in every window from now on: this Doris's information_schema.partitions has no "+
			"PARTITION_ID, COMMITTED_VERSION or VISIBLE_VERSION (they came with apache/doris#51025), so whether a table changed "+
			"cannot be told (skip_idle_tables has no effect here): %v", err)
		return true
	}
	if !iw.failedBefore {
		iw.failedBefore = true
		iw.log.Warnf("Reading the partition versions of database %s failed, so its tables are read in this window as without "+
			"skip_idle_tables; it is tried again every poll, and further failures are logged at DEBUG: %v", db, err)
		return false
	}
	iw.log.Debugf("Reading the partition versions of database %s failed; its tables are read in this window: %v", db, err)
	return false
}

// errVersionColumnsMissing: the FE does not know the version columns.
var errVersionColumnsMissing = errors.New("information_schema.partitions has no version columns")

// Columns of the version query.
const (
	colTableName = "TABLE_NAME"
	colPartition = "PARTITION_ID"
	colCommitted = "COMMITTED_VERSION"
	colVisible   = "VISIBLE_VERSION"
)

// versionsSQL is the version query of db. `TABLE_SCHEMA` = '<db>' is the
// form Doris pushes down to the scanner's database list
// (PushDownFilterIntoSchemaScan), so one database is visited, not all.
func versionsSQL(db string) string {
	return "SELECT `" + colTableName + "`, `" + colPartition + "`, `" + colCommitted + "`, `" + colVisible +
		"` FROM `information_schema`.`partitions` WHERE `TABLE_SCHEMA` = " + doris.QuoteLiteral(db)
}

// snapshot reads the versions of db's partitions over one Flight query
// (not /api/query, whose answers stop at 10,000 rows).
func (iw *idleWindows) snapshot(ctx context.Context, db string) (*idle.Snapshot, error) {
	if err := doris.ValidateLiteral(db); err != nil {
		return nil, fmt.Errorf("database name %q: %w", db, err)
	}
	var rows []idle.Row
	err := iw.c.onSession(ctx, iw.conf.QueryTimeout, func(qctx context.Context, fc *flight.Client) error {
		rows = rows[:0] // a retried session starts over
		return fc.Query(qctx, versionsSQL(db), func(rec arrow.RecordBatch) error {
			got, err := versionRows(rec)
			rows = append(rows, got...)
			return err
		})
	})
	if err != nil {
		if isMissingColumn(err) {
			return nil, fmt.Errorf("%w: %v", errVersionColumnsMissing, err)
		}
		return nil, fmt.Errorf("reading the partition versions of database %s: %w", db, err)
	}
	s, err := idle.Build(rows)
	if err != nil {
		var cloud *idle.ErrCloudMode
		if errors.As(err, &cloud) {
			return nil, err
		}
		return nil, fmt.Errorf("the partition versions of database %s: %w", db, err)
	}
	return s, nil
}

// isMissingColumn tells Doris's (and the simulator's) answer to a column
// the table does not have, naming one of the version columns.
func isMissingColumn(err error) bool {
	msg := strings.ToLower(err.Error())
	if !strings.Contains(msg, "unknown column") && !strings.Contains(msg, "could not be found") {
		return false
	}
	for _, c := range []string{colPartition, colCommitted, colVisible} {
		if strings.Contains(msg, strings.ToLower(c)) {
			return true
		}
	}
	return false
}

// versionRows reads one record batch of the version query, columns found
// by name.
func versionRows(rec arrow.RecordBatch) ([]idle.Row, error) {
	idx := map[string]int{}
	for i, f := range rec.Schema().Fields() {
		idx[strings.ToUpper(f.Name)] = i
	}
	col := func(name string) (arrow.Array, error) {
		i, ok := idx[name]
		if !ok {
			return nil, fmt.Errorf("%w: the answer has no column %s", errVersionColumnsMissing, name)
		}
		return rec.Column(i), nil
	}
	var cols [4]arrow.Array
	for i, name := range []string{colTableName, colPartition, colCommitted, colVisible} {
		c, err := col(name)
		if err != nil {
			return nil, err
		}
		cols[i] = c
	}
	out := make([]idle.Row, rec.NumRows())
	for r := range out {
		name, err := textCell(cols[0], r)
		if err != nil {
			return nil, fmt.Errorf("%s of row %d: %w", colTableName, r, err)
		}
		var v [3]int64
		for i, name := range []string{colPartition, colCommitted, colVisible} {
			if v[i], err = intCell(cols[i+1], r); err != nil {
				return nil, fmt.Errorf("%s of row %d: %w", name, r, err)
			}
		}
		out[r] = idle.Row{Table: name, PartitionID: v[0], CommittedVersion: v[1], VisibleVersion: v[2]}
	}
	return out, nil
}

func textCell(a arrow.Array, i int) (string, error) {
	if a.IsNull(i) {
		return "", errors.New("NULL")
	}
	switch c := a.(type) {
	case *array.String:
		return c.Value(i), nil
	case *array.LargeString:
		return c.Value(i), nil
	case *array.Binary:
		return string(c.Value(i)), nil
	}
	return "", fmt.Errorf("unexpected Arrow type %s", a.DataType())
}

func intCell(a arrow.Array, i int) (int64, error) {
	if a.IsNull(i) {
		return 0, errors.New("NULL")
	}
	switch c := a.(type) {
	case *array.Int64:
		return c.Value(i), nil
	case *array.Int32:
		return int64(c.Value(i)), nil
	}
	return 0, fmt.Errorf("unexpected Arrow type %s", a.DataType())
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
