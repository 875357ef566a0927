package offsetcmd

import (
	"context"
	"fmt"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// loaded is the stored state and how it was found.
type loaded struct {
	st         *checkpoint.State
	fromBackup bool
}

// load reads the checkpoint under the input's key. A checkpoint still
// under the key of an earlier build is named, so that the user starts the
// pipeline once to carry it over rather than edit a key the input no
// longer reads.
func (t *Target) load(ctx context.Context) (*loaded, error) {
	st, info, err := t.store.Load(ctx)
	if err != nil {
		return nil, fmt.Errorf("checkpoint_cache %s, key %s: %s", t.Cache, t.Key, t.redact(err.Error()))
	}
	if st != nil {
		return &loaded{st: st, fromBackup: info.FromBackup}, nil
	}
	if t.legacy != nil {
		old, _, err := t.legacy.Load(ctx)
		if err == nil && old != nil {
			return nil, fmt.Errorf("checkpoint_cache %s holds no checkpoint under key %s, but one under %s, the key of an earlier build: "+
				"start the pipeline once to carry it over, then run this command again", t.Cache, t.Key, t.LegacyKey)
		}
	}
	return nil, fmt.Errorf("checkpoint_cache %s holds no checkpoint under key %s (nor %s%s): %w",
		t.Cache, t.Key, t.Key, checkpoint.BackupSuffix, errNoCheckpoint)
}

// Show reports the stored checkpoint.
func (t *Target) Show(ctx context.Context) (*Report, error) {
	l, err := t.load(ctx)
	if err != nil {
		return nil, err
	}
	return buildReport(t, l.st, l.fromBackup, askDoris(ctx, t, l.st)), nil
}
