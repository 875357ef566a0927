package input

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

// ConnectionTest checks what a run needs before it starts, without reading
// any data or touching the checkpoint: every FE answers with the configured
// credentials, every selected table exists and, with a binlog phase, has a
// row binlog this mode can read, and a Flight SQL session opens. Each
// failure is one result naming the server or the table.
func (r *reader) ConnectionTest(ctx context.Context) service.ConnectionTestResults {
	return connectionTest(ctx, r.conf, r.log, r.m)
}

func connectionTest(ctx context.Context, conf *Config, log *service.Logger, m *metrics) service.ConnectionTestResults {
	var res service.ConnectionTestResults
	fail := func(err error) { res = append(res, service.ConnectionTestFailed(err)) }

	var good []string
	for _, fe := range conf.FENodes {
		rest, err := restClient(conf, log, []string{fe}, 1)
		if err == nil {
			_, err = doris.ListDatabases(ctx, rest)
			rest.Close()
		}
		if err != nil {
			fail(fmt.Errorf("FE %s: %w", fe, err))
			continue
		}
		good = append(good, fe)
	}
	if len(good) == 0 {
		return res
	}
	rest, err := restClient(conf, log, good, conf.Retries)
	if err != nil {
		fail(err)
		return res
	}
	defer rest.Close()
	c := &conn{conf: conf, log: log, rest: rest}
	defer c.close() // the sessions snapshot_consistency: exact probed with
	for _, err := range selectedTableProblems(ctx, &catalog{conf: conf, c: c, m: m, log: log}) {
		fail(err)
	}
	fc, err := c.dialFlight(ctx)
	if err != nil {
		fail(fmt.Errorf("Flight SQL on %s: %w", rest.Host(), err))
	} else {
		_ = fc.Close()
	}
	if len(res) == 0 {
		return service.ConnectionTestSucceeded().AsList()
	}
	return res
}

// selectedTableProblems checks each table of the selection: a named table
// must exist, patterns must match at least one table, and with a binlog
// phase each table must have a row binlog the mode can read (a matched
// table without one would be skipped at run time, which the test reports).
func selectedTableProblems(ctx context.Context, cat *catalog) []error {
	found, err := cat.candidates(ctx)
	if err != nil {
		return []error{fmt.Errorf("listing the selected tables: %w", err)}
	}
	var problems []error
	sel := &cat.conf.Selection
	if sel.byPattern() {
		if len(found) == 0 {
			problems = append(problems, errors.New("no table matches include (minus exclude)"))
		}
	} else {
		for _, want := range sel.fixed {
			if !slices.Contains(found, want) {
				problems = append(problems, fmt.Errorf("table %s does not exist", want.key))
			}
		}
	}
	for _, name := range found {
		t, problem, err := cat.admit(ctx, name)
		switch {
		case err != nil:
			problems = append(problems, fmt.Errorf("table %s: %w", name.key, err))
		case problem != "":
			problems = append(problems, errors.New(problem))
		default:
			if err := exactSnapshotProblem(ctx, cat, t); err != nil {
				problems = append(problems, err)
			}
		}
	}
	return problems
}
