package output

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

// rereadEvery bounds how often a target's columns are read again while a
// batch keeps finding one missing (Benthos retries the failed batch).
const rereadEvery = time.Second

// checkSchemas makes sure no row of the part loses a column its schema
// carries: the target has every column of every schema among the part's
// messages, after schema_evolution added or widened what it may. It
// reports skip when Doris already holds the part under its label (a
// replay of older messages, which must not change the target's schema).
// Messages without schema metadata, CSV bodies and an explicit columns
// list are loaded as Doris matches them.
func (o *dorisLoad) checkSchemas(ctx context.Context, batch service.MessageBatch, p *part) (skip bool, err error) {
	if !checksSchemas(o.conf) {
		return false, nil
	}
	schemas, err := partSchemas(batch, p)
	if err != nil || len(schemas) == 0 {
		return false, err
	}
	ts, err := o.targets.of(ctx, p)
	if err != nil {
		return false, err
	}
	defer ts.mu.Unlock()
	for _, s := range schemas {
		v, err := ts.verdict(o.conf, p, s)
		if err != nil {
			return false, err
		}
		if !v.ok() {
			if v, skip, err = o.resolve(ctx, ts, batch, p, s, v); err != nil || skip {
				return skip, err
			}
		}
		if o.conf.dropColumns {
			if err := o.dropGone(ctx, ts, p, s, v); err != nil {
				return false, err
			}
		}
	}
	return false, nil
}

// checksSchemas tells whether the bodies' keys are matched to columns by
// name, which is when a column the target lacks loses its values.
func checksSchemas(c *config) bool { return c.format == formatJSON && c.columns == "" }

// resolve handles a schema the target does not fit: read the target again
// (someone may have added the column), skip a part Doris already loaded,
// else change the target (schema_evolution) or stop.
func (o *dorisLoad) resolve(ctx context.Context, ts *targetSchema, batch service.MessageBatch, p *part, s msgSchema, v *verdict) (*verdict, bool, error) {
	var err error
	if time.Since(ts.readAt) >= rereadEvery {
		if v, err = o.reread(ctx, ts, p, s); err != nil || v.ok() {
			return v, false, err
		}
	}
	if len(v.missing) > 0 {
		// Only columns the bodies hold can lose values.
		held := *v
		held.missing = carried(batch, p, s.fp, v.missing)
		if held.ok() {
			return &held, false, nil
		}
		v = &held
	}
	if done, err := o.alreadyLoaded(ctx, p); err != nil || done {
		return v, done, err
	}
	if len(v.bad) > 0 {
		return v, false, doris.Permanent(fmt.Errorf("message %d into %s: %s; change the target by hand, then restart", s.first, p.target, strings.Join(v.bad, "; ")))
	}
	if !o.conf.evolve {
		return v, false, doris.Permanent(o.missingError(p, s, v))
	}
	changed := false
	for _, c := range v.missing {
		name := strings.ToLower(c.Name)
		if at := ts.droppedAt[name]; at > 0 && s.tso > 0 && s.tso < at {
			// Older than the drop: the column went after these rows, so
			// they load without it rather than bring it back.
			o.log.Debugf("doris_load: message %d into %s carries column %s, dropped at tso %d; loading it without the column", s.first, p.target, c.Name, at)
			continue
		}
		typ, err := v.addType(c)
		if err != nil {
			return v, false, doris.Permanent(fmt.Errorf("add column to %s: %w", p.target, err))
		}
		clause := "ADD COLUMN " + doris.QuoteIdent(c.Name) + " " + typ + " NULL"
		// Another pipeline, or a hand, added it first: with this type, or
		// another, which the reread below judges.
		if err := o.alter(ctx, p, clause, "already exists", "repeatedly add same column"); err != nil {
			return v, false, err
		}
		changed = true
		o.log.Infof("doris_load: added column %s %s to %s: message %d carries it", c.Name, typ, p.target, s.first)
	}
	for _, w := range v.widen {
		if err := o.widen(ctx, ts, p, w); err != nil {
			return v, false, err
		}
		changed = true
	}
	if !changed {
		return v, false, nil
	}
	if v, err = o.reread(ctx, ts, p, s); err != nil {
		return v, false, err
	}
	for _, c := range carried(batch, p, s.fp, v.missing) {
		if ts.droppedAt[strings.ToLower(c.Name)] == 0 {
			return v, false, doris.Permanent(fmt.Errorf("%s still lacks column %s after ALTER TABLE ADD COLUMN", p.target, c.Name))
		}
	}
	if len(v.widen) > 0 || len(v.bad) > 0 {
		return v, false, doris.Permanent(fmt.Errorf("message %d into %s: the target's columns still do not fit after the schema change", s.first, p.target))
	}
	return v, false, nil
}

func (o *dorisLoad) reread(ctx context.Context, ts *targetSchema, p *part, s msgSchema) (*verdict, error) {
	if err := o.targets.read(ctx, ts, p); err != nil {
		return nil, err
	}
	return ts.verdict(o.conf, p, s)
}

// missingError is the stop of a schema_evolution-off output.
func (o *dorisLoad) missingError(p *part, s msgSchema, v *verdict) error {
	var adds []string
	for _, c := range v.missing {
		typ, err := v.addType(c)
		if err != nil {
			typ = "<type>"
		}
		adds = append(adds, "ADD COLUMN "+doris.QuoteIdent(c.Name)+" "+typ)
	}
	return fmt.Errorf("message %d into %s carries column(s) %s, which %s lacks: Stream Load would drop their values, so nothing of this batch is loaded. Add them (ALTER TABLE %s %s) and the batch loads on its next attempt, or enable %s.%s",
		s.first, p.target, strings.Join(missingNames(v.missing), ", "), p.target,
		doris.QualifiedTable(p.db, p.table), strings.Join(adds, ", "), fieldSchemaEvolution, fieldEvolveEnabled)
}

// alreadyLoaded asks whether Doris holds the part under its label: a
// replayed batch, whose older schema must not change the target.
func (o *dorisLoad) alreadyLoaded(ctx context.Context, p *part) (bool, error) {
	if !p.positioned || p.label == "" {
		return false, nil
	}
	state, err := o.ld.loadState(ctx, p.db, p.label)
	if err != nil {
		return false, fmt.Errorf("load state of label %s into %s: %w", p.label, p.target, err)
	}
	if state == stateVisible || state == stateCommitted {
		o.log.Debugf("doris_load: label %s into %s is already loaded; skipping the replayed batch and its older schema", p.label, p.target)
		return true, nil
	}
	return false, nil
}

// dropGone drops the target columns that the previous schema of the stream
// had and s no longer has (drop_columns). Only a schema at least as new as
// the last one counts: an older, replayed one changes nothing.
func (o *dorisLoad) dropGone(ctx context.Context, ts *targetSchema, p *part, s msgSchema, v *verdict) error {
	if s.tso > 0 && s.tso < ts.lastTSO {
		return nil
	}
	prev := ts.last
	ts.last, ts.lastTSO = v.names, max(ts.lastTSO, s.tso)
	for name := range prev {
		col, ok := ts.cols[name]
		if v.names[name] || !ok || ts.keys[name] || strings.EqualFold(name, o.conf.seqCol) {
			continue
		}
		if err := o.alter(ctx, p, "DROP COLUMN "+doris.QuoteIdent(col.Name), "does not exist"); err != nil {
			return err
		}
		delete(ts.cols, name)
		ts.verdicts = map[string]*verdict{}
		if s.tso > 0 {
			ts.droppedAt[name] = s.tso
		}
		o.log.Infof("doris_load: dropped column %s from %s: the messages' schema no longer has it (message %d)", col.Name, p.target, s.first)
	}
	return nil
}

// widen changes a target column to a wider type and waits, bounded by
// request_read_timeout, until SHOW CREATE TABLE shows it: a change that
// rewrites data runs as a job after the ALTER returns.
func (o *dorisLoad) widen(ctx context.Context, ts *targetSchema, p *part, w widening) error {
	null := " NULL"
	if n, ok := ts.nullable[strings.ToLower(w.col.Name)]; ok && !n {
		null = " NOT NULL"
	}
	if err := o.alter(ctx, p, "MODIFY COLUMN "+doris.QuoteIdent(w.col.Name)+" "+w.to+null); err != nil {
		return err
	}
	deadline := time.Now().Add(o.conf.stateWait)
	for {
		props, err := doris.FetchTableProperties(ctx, o.targets.fe, p.db, p.table)
		if err != nil {
			return fmt.Errorf("widen %s.%s: %w", p.target, w.col.Name, err)
		}
		for _, c := range props.Columns {
			if strings.EqualFold(c.Name, w.col.Name) {
				f, _ := typeFit(w.col, c.Type)
				if w.exact {
					f, _, _ = exactFit(w.to, c.Type)
				}
				if f == fitOK {
					o.log.Infof("doris_load: widened column %s of %s from %s to %s", w.col.Name, p.target, w.from, c.Type)
					return nil
				}
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("column %s of %s is still not %s %s after ALTER TABLE MODIFY COLUMN", w.col.Name, p.target, w.to, o.conf.stateWait)
		}
		if err := doris.Sleep(ctx, loadStatePoll); err != nil {
			return err
		}
	}
}

// alter runs ALTER TABLE on the part's target. An answer containing one of
// done ("already exists" for an ADD, "does not exist" for a DROP) means
// another pipeline made the change: success. Doris's other refusals are
// permanent, but for a table busy with another schema change ("Table[t]'s
// state(SCHEMA_CHANGE) is not NORMAL. Do not allow doing ALTER ops"),
// which passes: the batch is retried.
func (o *dorisLoad) alter(ctx context.Context, p *part, clause string, done ...string) error {
	stmt := "ALTER TABLE " + doris.QualifiedTable(p.db, p.table) + " " + clause
	_, err := doris.Statement(ctx, o.targets.fe, stmt)
	if err == nil {
		return nil
	}
	msg := strings.ToLower(err.Error())
	for _, d := range done {
		if strings.Contains(msg, d) {
			o.log.Debugf("doris_load: %s: done already (%v)", stmt, err)
			return nil
		}
	}
	err = fmt.Errorf("%s: %w", stmt, err)
	var api *doris.APIError
	if errors.As(err, &api) && !strings.Contains(msg, "is not normal") && !strings.Contains(msg, "do not allow doing alter") && !strings.Contains(msg, "schema change") {
		return doris.Permanent(err)
	}
	return err
}
