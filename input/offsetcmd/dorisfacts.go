package offsetcmd

import (
	"context"
	"fmt"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// dorisTimeout bounds what the command waits for Doris: the report is
// printed without the TTLs rather than hang on an unreachable cluster.
const dorisTimeout = 15 * time.Second

// askDoris reads Doris's current time and the binlog.ttl_seconds of every
// table of st that has a binlog position, as the input reads them (GET
// /api/tso and SHOW CREATE TABLE). When Doris cannot be asked, the facts
// say why and ages are measured with this machine's clock.
func askDoris(ctx context.Context, t *Target, st *checkpoint.State) *facts {
	f := &facts{doris: DorisReport{Now: time.Now().UTC()}, ttl: map[string]int64{}, errs: map[string]string{}}
	ctx, cancel := context.WithTimeout(ctx, dorisTimeout)
	defer cancel()
	c, err := t.RESTClient()
	if err != nil {
		f.doris.Error = t.redact(err.Error())
		return f
	}
	defer c.Close()
	now, err := doris.CurrentTSO(ctx, c)
	if err != nil {
		f.doris.Error = t.redact(fmt.Sprintf("reading the current Doris time: %v", err))
		return f
	}
	f.doris.Reachable, f.doris.Now = true, time.UnixMilli(now.PhysicalMs).UTC()
	for _, name := range st.TableNames() {
		if st.Tables[name].Phase == checkpoint.PhaseDone || st.Stream == nil {
			continue
		}
		db, table, err := doris.ParseTableIdentifier(name)
		if err != nil {
			f.errs[name] = err.Error()
			continue
		}
		props, err := doris.FetchTableProperties(ctx, c, db, table)
		if err != nil {
			f.errs[name] = t.redact(fmt.Sprintf("reading binlog.ttl_seconds: %v", err))
			continue
		}
		f.ttl[name] = props.TTLSeconds
	}
	return f
}
