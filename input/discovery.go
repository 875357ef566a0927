package input

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// discovery is the outcome of comparing the listed tables with the
// followed ones.
type discovery struct {
	added, removed, recreated, skipped []string
}

func (d *discovery) changed() bool {
	return len(d.added)+len(d.removed)+len(d.recreated)+len(d.skipped) > 0
}

// String summarises what changed for one line at info level: a discovery
// may find a thousand new tables at once (a new database, a widened
// include), so each kind names its first few tables only; every table is
// named by its own line (a debug line for one that joins, a warning for
// one that leaves, starts over or is skipped).
func (d *discovery) String() string {
	var parts []string
	for _, kind := range []struct {
		verb  string
		names []string
	}{{"added", d.added}, {"removed", d.removed}, {"recreated", d.recreated}, {"skipped", d.skipped}} {
		if len(kind.names) > 0 {
			parts = append(parts, kind.verb+" "+tableList(kind.names))
		}
	}
	return strings.Join(parts, "; ")
}

// discoverer lists the tables again every table_discovery_interval, between
// windows, and applies what changed to the run's tables.
type discoverer struct {
	co   *coordinator
	last time.Time // when the last discovery ended, or the chain started
}

// due reports whether a discovery should run now.
func (d *discoverer) due() bool {
	iv := d.co.conf.DiscoveryInterval
	return iv > 0 && time.Since(d.last) >= iv
}

// run lists the tables and applies what changed: new tables join, dropped
// ones leave, recreated ones start over as new tables. A failed listing is
// retried at the next discovery.
func (d *discoverer) run(ctx context.Context) error {
	defer func() { d.last = time.Now() }() // the interval runs from the end
	co := d.co
	co.beginEvent()
	defer co.endEvent()
	cands, err := co.cat.candidates(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		co.log.Warnf("Listing tables for discovery failed, trying again in %s: %v", co.conf.DiscoveryInterval, err)
		return nil
	}
	var found discovery
	listed := map[string]bool{}
	for _, name := range cands {
		listed[name.key] = true
		if err := d.one(ctx, name, &found); err != nil {
			return err
		}
	}
	co.skipped.warn(found.skipped)
	co.skipped.forgetUnlisted(listed)
	var gone []string
	for _, key := range co.followedKeys() {
		if !listed[key] {
			gone = append(gone, key)
		}
	}
	if err := co.dropTables(ctx, gone); err != nil {
		return err
	}
	found.removed = append(found.removed, gone...)
	co.refreshTableGauges()
	if found.changed() {
		co.log.Infof("Table discovery: %s", &found)
	}
	return nil
}

// one handles one listed table: a known one is checked for having been
// recreated, an unknown one admitted or skipped.
func (d *discoverer) one(ctx context.Context, name tableName, found *discovery) error {
	co := d.co
	if t := co.table(name.key); t != nil {
		recreated, err := d.checkIdentity(ctx, t)
		if err != nil {
			return err
		}
		if !recreated {
			co.cat.warnDroppedPartitions(ctx, t)
			return nil
		}
		co.log.Warnf("Table %s was dropped and created again, or truncated (all its tablets are new): it restarts as a new table. "+
			"Rows it had before are not deleted downstream by change records", name.key)
		if err := co.removeTable(ctx, name.key); err != nil {
			return err
		}
		found.recreated = append(found.recreated, name.key)
	}
	t, problem, err := co.cat.admit(ctx, name)
	switch {
	case err != nil:
		co.log.Warnf("Checking table %s failed, trying again at the next discovery: %v", name.key, err)
		return nil
	case problem != "":
		if co.skipped.note(name.key, problem) {
			found.skipped = append(found.skipped, name.key)
		}
		return nil
	}
	co.skipped.clear(name.key)
	if err := co.addTable(ctx, t); err != nil {
		return err
	}
	if !slices.Contains(found.recreated, name.key) {
		found.added = append(found.added, name.key)
	}
	return nil
}

// checkIdentity compares the table's tablets with the highest one seen and
// records the new highest.
func (d *discoverer) checkIdentity(ctx context.Context, t *tableInfo) (recreated bool, err error) {
	co := d.co
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
		return false, co.em.emit(ctx, nil, func(st *checkpoint.State) { st.NoteMaxTablet(t.name.key, hi) })
	}
	return false, nil
}
