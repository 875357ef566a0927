package output

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

// newTestOutput builds a doris_load against f from extra YAML lines.
func newTestOutput(t *testing.T, f *fakeDoris, extra string) *dorisLoad {
	t.Helper()
	return outputFromYAML(t, "fenodes: "+f.addr()+"\nusername: root\npassword: pw\n"+extra)
}

// outputFromYAML builds a doris_load from a whole config, with fast retries.
func outputFromYAML(t testing.TB, yaml string) *dorisLoad {
	t.Helper()
	pc, err := Spec().ParseYAML(yaml, nil)
	if err != nil {
		t.Fatalf("parse yaml: %v", err)
	}
	conf, err := parseConfig(pc)
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	o, err := newDorisLoad(conf, nil)
	if err != nil {
		t.Fatal(err)
	}
	o.ld.tr.retry.Backoff = doris.BackoffPolicy{Base: time.Millisecond, Max: 5 * time.Millisecond}
	t.Cleanup(func() { _ = o.Close(context.Background()) })
	return o
}

// change builds a doris_binlog-like message.
func change(body, db, table, op string, tso, lsn int64) *service.Message {
	m := service.NewMessage([]byte(body))
	m.MetaSetMut("database_schema", db)
	m.MetaSetMut("table", table)
	m.MetaSetMut("operation", op)
	if tso != 0 {
		m.MetaSetMut("tso", tso)
		m.MetaSetMut("lsn", lsn)
	}
	return m
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func (f *fakeDoris) beLoads() []fakeLoad {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeLoad(nil), f.loads...)
}

func lines(s string) []string { return strings.Split(strings.TrimSpace(s), "\n") }

const routeYAML = "table_identifier: '${! @database_schema }_replica.${! @table }'\n"
