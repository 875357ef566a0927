package input

import (
	"context"
	"testing"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// TestCarryOverSkipsAnotherSelectionsState: `a_b.c` and `a.b_c` shared the
// old default key, so the state found there may be the other table's, which
// must not become this input's position.
func TestCarryOverSkipsAnotherSelectionsState(t *testing.T) {
	ctx := context.Background()
	res := service.MockResources(service.MockResourcesOptAddCache("cp"))
	old := checkpoint.LegacyTableKey("a_b", "c")
	st := checkpoint.New()
	st.AddTable("a_b.c", true, checkpoint.Bound{}, 0)
	st.FinishSnapshot("a_b.c")
	if err := checkpoint.NewStore(res, "cp", old).Save(ctx, st); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		table tableName
		found bool
	}{
		{newTableName("a_b", "c"), true},
		{newTableName("a", "b_c"), false},
	} {
		sel := selection{fixed: []tableName{tc.table}}
		conf := &Config{Selection: sel, CheckpointCache: "cp", CheckpointKey: defaultCheckpointKey(&sel), LegacyCheckpointKey: legacyCheckpointKey(&sel), CheckpointLimit: 1}
		if conf.LegacyCheckpointKey != old {
			t.Fatalf("legacy key of %s is %q, want %q", tc.table.key, conf.LegacyCheckpointKey, old)
		}
		r, err := newReader(conf, service.BatchPolicy{}, res)
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.startup(nil, nil).loadCarriedOver(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if (got != nil) != tc.found {
			t.Errorf("%s: carried over %+v, want found=%v", tc.table.key, got, tc.found)
		}
	}
}
