package input

import (
	"context"
	"fmt"
	"strings"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// loadCarriedOver reads the checkpoint that earlier builds kept under the
// selection's old default key (and its .bak), for a start where the new key
// holds none. A state naming tables outside the selection belongs to the
// other selection that shared the old key, and is left alone.
func (s *startup) loadCarriedOver(ctx context.Context) (*checkpoint.State, error) {
	old := s.conf.LegacyCheckpointKey
	if old == "" || old == s.conf.CheckpointKey {
		return nil, nil
	}
	st, _, err := checkpoint.NewStore(s.mgr, s.conf.CheckpointCache, old).Load(ctx)
	if err != nil {
		return nil, fatalf("checkpoint_cache %s, key %s (the default key of earlier builds, read because key %s holds nothing): %v; "+
			"the input will not guess a position. Restore the key from a backup, or delete it (and %s.bak) to start again from scan_mode",
			s.conf.CheckpointCache, old, s.conf.CheckpointKey, err, old)
	}
	if st == nil {
		return nil, nil
	}
	if foreign := s.foreignTables(st); len(foreign) > 0 {
		s.log.Warnf("Checkpoint key %s in cache %s, the default key of earlier builds, holds tables outside this input's selection (%s): "+
			"it belongs to another selection that shared the key, so it is not carried over to key %s",
			old, s.conf.CheckpointCache, tableList(foreign), s.conf.CheckpointKey)
		s.log.Debugf("Checkpoint key %s in cache %s holds these tables outside this input's selection: %s", old, s.conf.CheckpointCache, strings.Join(foreign, ", "))
		return nil, nil
	}
	s.log.Infof("Carrying the checkpoint over from key %s to key %s in cache %s: the default key changed so that no two selections share one; key %s is left as it is",
		old, s.conf.CheckpointKey, s.conf.CheckpointCache, old)
	return st, nil
}

// saveCarriedOver writes a carried-over state under the new key at once, so
// that the next start reads it there.
func (s *startup) saveCarriedOver(ctx context.Context, st *checkpoint.State) error {
	if err := s.save(ctx, st); err != nil {
		return fmt.Errorf("carrying the checkpoint over to key %s: %w", s.conf.CheckpointKey, err)
	}
	return nil
}

// foreignTables lists the tables of st that the selection does not hold.
func (s *startup) foreignTables(st *checkpoint.State) []string {
	sel := &s.conf.Selection
	var out []string
	for _, name := range st.TableNames() {
		t, err := parseTableName(name)
		if err != nil || !selects(sel, t) {
			out = append(out, name)
		}
	}
	return out
}

func selects(sel *selection, t tableName) bool {
	if sel.byPattern() {
		return sel.matches(t)
	}
	for _, f := range sel.fixed {
		if f.key == t.key {
			return true
		}
	}
	return false
}
