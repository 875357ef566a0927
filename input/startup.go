package input

import (
	"context"
	"fmt"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/input/delivery"
	"github.com/rpconnect-doris/rpconnect-doris/input/windowplan"
)

// startup decides where a run starts: the position committed in this
// process, else the stored checkpoint (carried over from an earlier key and
// converted to UTC bounds when it needs to be), else a fresh start from
// scan_mode; and it reconciles that position with the tables selected now.
// It is the one owner of start-up; the coordinator only runs what it
// decided.
type startup struct {
	conf    *Config
	log     *service.Logger
	mgr     *service.Resources
	store   *checkpoint.Store // nil when no checkpoint_cache is configured
	del     *delivery.Delivery[*checkpoint.State]
	planned *windowplan.Ends
	save    func(context.Context, *checkpoint.State) error // a save checked by saveHealth
	c       *conn
	cat     *catalog
	cluster string // the id of the cluster fenodes reach, read by run
}

// startPoint is what startup decided.
type startPoint struct {
	st      *checkpoint.State
	tables  []*tableInfo // followed from the start
	skipped *skippedTables
	// Differences between a resumed position and the tables selected now,
	// applied when the run starts.
	removals []string
	adds     []*tableInfo
}

// run plans the start of a run: the committed checkpoint when there is one
// (it wins over scan_mode and scan_timestamp, as restoring Flink state
// does), else a fresh start from scan_mode.
func (s *startup) run(ctx context.Context) (*startPoint, error) {
	sp := &startPoint{skipped: newSkippedTables(s.log)}
	var err error
	if s.cluster, err = s.currentCluster(ctx); err != nil {
		return nil, err
	}
	st, err := s.loadCommitted(ctx)
	if err != nil {
		return nil, err
	}
	if st == nil {
		if st, err = s.freshStart(ctx, sp); err != nil {
			return nil, err
		}
	} else if err := s.resume(ctx, st, sp); err != nil {
		return nil, err
	}
	sp.st = st
	return sp, nil
}

// loadCommitted returns the position a new run starts from: the last one
// committed in this process, else the stored checkpoint, else nil.
func (s *startup) loadCommitted(ctx context.Context) (*checkpoint.State, error) {
	if st, ok := s.del.Committed(); ok {
		// A run after a reconnect: fenodes may reach another cluster now.
		if st.ClusterID != "" && st.ClusterID != s.conf.CheckpointAcceptCluster {
			if _, err := s.guardCluster(st, s.cluster); err != nil {
				return nil, err
			}
		}
		return st, nil
	}
	if s.store == nil {
		return nil, nil
	}
	st, info, err := s.store.Load(ctx)
	if err != nil {
		return nil, fatalf("checkpoint_cache %s, key %s: %v; the input will not guess a position. "+
			"Restore the key from a backup, or delete it (and %s.bak) to start again from scan_mode",
			s.conf.CheckpointCache, s.conf.CheckpointKey, err, s.conf.CheckpointKey)
	}
	if info.CorruptKey != "" {
		s.log.Warnf("Checkpoint key %s in cache %s is unreadable (%v), probably torn by a crash during a write; using the intact copy (seq %d)",
			info.CorruptKey, s.conf.CheckpointCache, info.CorruptErr, seqOf(st))
	}
	carried := false
	if st == nil {
		if st, err = s.loadCarriedOver(ctx); err != nil || st == nil {
			return nil, err
		}
		carried = true
	}
	record, err := s.guardCluster(st, s.cluster)
	if err != nil {
		return nil, err
	}
	if st.FromVersion != 0 {
		s.log.Infof("Checkpoint key %s in cache %s has the version %d layout of a single-table input; it is carried over as is and saved as version %d from the next commit",
			s.conf.CheckpointKey, s.conf.CheckpointCache, st.FromVersion, checkpoint.Version)
	}
	if st.InFEZone() {
		if err := s.convertToUTC(ctx, st); err != nil {
			return nil, err
		}
	}
	if carried {
		if err := s.saveCarriedOver(ctx, st); err != nil {
			return nil, err
		}
	} else if record {
		if err := s.save(ctx, st); err != nil {
			return nil, fmt.Errorf("recording Doris cluster %s in checkpoint key %s: %w", st.ClusterID, s.conf.CheckpointKey, err)
		}
	}
	s.log.Infof("Resuming from the checkpoint in cache %s (key %s: %s); scan_mode %s and scan_timestamp are ignored while a checkpoint exists",
		s.conf.CheckpointCache, s.conf.CheckpointKey, summarizeState(st), s.conf.ScanMode)
	logTablesAtDebug(s.log, st, "in the checkpoint")
	s.planned.Restore(st)
	if st.Stream != nil && len(st.Stream.Planned) > 0 {
		s.log.Infof("Re-reading the binlog windows chosen before the restart, up to %s, so that the same batches come out again", st.Stream.Planned[len(st.Stream.Planned)-1])
		st.Stream.Planned = nil // kept by the planner; every save writes them again
	}
	s.del.Restore(st)
	return st, nil
}

func seqOf(st *checkpoint.State) uint64 {
	if st == nil {
		return 0
	}
	return st.Seq
}

// freshStart lists and admits the selected tables and resolves the start
// from scan_mode. Every mode with a binlog phase stores its start at once,
// so a crash before the first ack keeps the same start.
func (s *startup) freshStart(ctx context.Context, sp *startPoint) (*checkpoint.State, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	tables, err := s.admitAll(ctx, false, sp.skipped)
	if err != nil {
		return nil, err
	}
	st := checkpoint.New()
	st.ClusterID = s.cluster
	snapshot, asOf := false, int64(0)
	switch s.conf.ScanMode {
	case "snapshot":
		snapshot = true
	case "initial":
		// The second before the current one: every snapshot is read as of
		// its first millisecond's end, and the binlog leaves out what they
		// hold (snapshotasof.go). It is past already, so nothing waits.
		now, err := s.c.currentBound(ctx)
		if err != nil {
			return nil, fmt.Errorf("resolving the stream start for initial mode: %w", err)
		}
		start, x := startTSO(now)
		st.StartChain(start.Stored())
		snapshot, asOf = true, x
	case "latest":
		ts, err := s.c.currentBound(ctx)
		if err != nil {
			return nil, fmt.Errorf("resolving the stream start for latest mode: %w", err)
		}
		st.StartChain(ts.Stored())
	case "from-timestamp":
		start, err := s.scanTimestampBound(ctx)
		if err != nil {
			return nil, err
		}
		st.StartChain(start.Stored())
	default:
		return nil, fatalf("scan_mode %q is not supported", s.conf.ScanMode)
	}
	his := make([]int64, len(tables))
	err = forEachTable(ctx, len(tables), func(ctx context.Context, i int) error {
		_, hi, err := tables[i].tabletRange(ctx)
		if err == nil {
			his[i] = hi
			tables[i].notePartitions(ctx)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	for i, t := range tables {
		st.AddTable(t.name.key, snapshot, checkpoint.Bound{}, his[i])
		st.SetSnapshotTSO(t.name.key, asOf)
	}
	sp.tables = tables
	if st.Stream != nil {
		if err := s.del.Commit(ctx, st); err != nil {
			return nil, fmt.Errorf("saving the stream start to checkpoint_cache %s: %w", s.conf.CheckpointCache, err)
		}
	}
	s.log.Infof("Starting with scan_mode %s: %s", s.conf.ScanMode, summarizeState(st))
	logTablesAtDebug(s.log, st, "at the start")
	return st, nil
}

// admitAll lists the selection and admits each table. A named table that
// cannot be followed stops the input; a matched one is skipped. On a fresh
// start every named table must exist; on a resume one that is gone was
// dropped and leaves.
func (s *startup) admitAll(ctx context.Context, resuming bool, skipped *skippedTables) ([]*tableInfo, error) {
	names := s.conf.Selection.fixed
	if s.conf.Selection.byPattern() || resuming {
		found, err := s.cat.candidates(ctx)
		if err != nil {
			return nil, fmt.Errorf("listing tables for include: %w", err)
		}
		names = found
	}
	admitted := make([]*tableInfo, len(names))
	problems := make([]string, len(names))
	// A named table that cannot be followed fails like a failed request,
	// so that the first of either in table order is what stops the input.
	err := forEachTable(ctx, len(names), func(ctx context.Context, i int) (err error) {
		admitted[i], problems[i], err = s.cat.admit(ctx, names[i])
		if err == nil && problems[i] != "" && !s.conf.Selection.byPattern() {
			err = fatalf("%s", problems[i])
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	var out []*tableInfo
	var newlySkipped []string
	for i, name := range names {
		if problems[i] != "" {
			if skipped.note(name.key, problems[i]) {
				newlySkipped = append(newlySkipped, name.key)
			}
			continue
		}
		out = append(out, admitted[i])
	}
	skipped.warn(newlySkipped)
	if len(out) == 0 && !s.conf.Selection.byPattern() {
		return nil, fmt.Errorf("no table to read")
	}
	return out, nil
}

// resume reconciles a stored position with the tables selected now: a table
// no longer selected or no longer there leaves, a newly selected one joins
// as it would at discovery (the first run applies those changes).
func (s *startup) resume(ctx context.Context, st *checkpoint.State, sp *startPoint) error {
	tables, err := s.admitAll(ctx, true, sp.skipped)
	if err != nil {
		return err
	}
	sp.tables = tables
	_ = forEachTable(ctx, len(tables), func(ctx context.Context, i int) error {
		tables[i].notePartitions(ctx) // a failure only logs
		return nil
	})
	listed := map[string]bool{}
	for _, t := range tables {
		listed[t.name.key] = true
		if st.Tables[t.name.key] == nil {
			sp.adds = append(sp.adds, t)
		}
	}
	for _, key := range st.TableNames() {
		if !listed[key] {
			sp.removals = append(sp.removals, key)
		}
	}
	return nil
}
