package input

import (
	"context"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/input/delivery"
	"github.com/rpconnect-doris/rpconnect-doris/input/windowplan"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

// simEnv is what a run takes from connecting, on the in-process simulator:
// the config, the connection (with the FE's zone read as openConn does),
// the catalog and a logger whose lines tests can check.
type simEnv struct {
	srv   *dorissim.Server
	conf  *Config
	c     *conn
	cat   *catalog
	m     *metrics
	res   *service.Resources
	log   *service.Logger
	lines *logSink
}

// cpCache is the memory cache the fixtures keep checkpoints in.
const cpCache = "cp"

// newSimEnv starts a simulator with sc, runs stmts on it, and fills in
// conf's connection fields (and defaults the tests rely on).
func newSimEnv(t *testing.T, sc dorissim.Config, conf *Config, stmts ...string) *simEnv {
	t.Helper()
	ctx := testCtx(t)
	srv := startSim(t, sc, stmts...)
	conf.FENodes, conf.Username, conf.Password, conf.Retries = []string{srv.HTTPAddr()}, simUser, simPassword, 1
	conf.ConnectTimeout, conf.ReadTimeout = 5*time.Second, 5*time.Second
	conf.MaxParallelSnapshotTables = max(conf.MaxParallelSnapshotTables, 1)
	conf.MaxParallelSnapshotSplits = max(conf.MaxParallelSnapshotSplits, 1)
	conf.CheckpointLimit = max(conf.CheckpointLimit, 1)
	conf.RequestTabletSize = max(conf.RequestTabletSize, 1)
	conf.BatchSize = max(conf.BatchSize, 100)
	conf.QueryTimeout = max(conf.QueryTimeout, 10*time.Second)
	if conf.IncrementType == "" {
		conf.IncrementType = "DETAIL"
	}
	log, lines := captureLogger(t)
	res := service.MockResources(service.MockResourcesOptAddCache(cpCache))
	rest, err := restClient(conf, log, conf.FENodes, conf.Retries)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rest.Close)
	zone, err := doris.FETimeZone(ctx, rest)
	if err != nil {
		t.Fatal(err)
	}
	c := &conn{conf: conf, log: log, rest: rest, zone: zone}
	m := newMetrics(res.Metrics())
	return &simEnv{srv: srv, conf: conf, c: c, cat: &catalog{conf: conf, c: c, m: m, log: log}, m: m, res: res, log: log, lines: lines}
}

func (e *simEnv) exec(t *testing.T, stmts ...string) {
	t.Helper()
	simExec(t, e.srv, stmts...)
}

// startup is a start-up over e whose saves are recorded; with a
// checkpoint key set it keeps the checkpoint in cpCache.
func (e *simEnv) startup(t *testing.T) (*startup, *[]*checkpoint.State) {
	t.Helper()
	var saved []*checkpoint.State
	save := func(_ context.Context, st *checkpoint.State) error {
		saved = append(saved, st.Clone())
		return nil
	}
	del, err := delivery.New(delivery.Options[*checkpoint.State]{Limit: 1, Equal: checkpoint.Equal, Save: save})
	if err != nil {
		t.Fatal(err)
	}
	s := &startup{conf: e.conf, log: e.log, mgr: e.res, del: del, planned: &windowplan.Ends{}, c: e.c, cat: e.cat, save: save}
	if e.conf.CheckpointKey != "" {
		e.conf.CheckpointCache = cpCache
		s.store = checkpoint.NewStore(e.res, cpCache, e.conf.CheckpointKey)
	}
	return s, &saved
}

// store saves st under the checkpoint key, as an earlier run would have.
func (e *simEnv) store(t *testing.T, st *checkpoint.State) {
	t.Helper()
	if err := checkpoint.NewStore(e.res, cpCache, e.conf.CheckpointKey).Save(context.Background(), st); err != nil {
		t.Fatal(err)
	}
}
