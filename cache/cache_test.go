package cache_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"
	"github.com/redpanda-data/benthos/v4/public/service/integration"

	_ "github.com/redpanda-data/benthos/v4/public/components/pure"

	"github.com/rpconnect-doris/rpconnect-doris/cache"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

func startSim(t *testing.T, cfg dorissim.Config) *dorissim.Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	srv, err := dorissim.Start(ctx, cfg)
	if err != nil {
		t.Fatalf("starting dorissim: %v", err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	exec(t, srv, "CREATE DATABASE ops")
	return srv
}

func exec(t *testing.T, srv *dorissim.Server, sql string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := srv.Exec(ctx, sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// newCache builds a cache from yaml parsed with the cache's own spec.
func newCache(t *testing.T, yaml string) *cache.Cache {
	t.Helper()
	pc, err := cache.Spec().ParseYAML(yaml, nil)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	c, err := cache.FromParsed(pc, nil)
	if err != nil {
		t.Fatalf("new: %v", err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestCacheContract runs Benthos's own cache suite against the simulator.
func TestCacheContract(t *testing.T) {
	srv := startSim(t, dorissim.Config{})
	tmpl := fmt.Sprintf(`
cache_resources:
  - label: testcache
    doris:
      jdbc_url: jdbc:mysql://%s
      table: ops.contract_$ID
`, srv.MySQLAddr())
	integration.CacheTests(
		integration.CacheTestOpenClose(),
		integration.CacheTestMissingKey(),
		integration.CacheTestDoubleAdd(),
		integration.CacheTestDelete(),
		integration.CacheTestGetAndSet(20),
	).Run(t, tmpl, integration.CacheTestOptTimeout(60*time.Second),
		integration.CacheTestOptPreTest(func(t testing.TB, _ context.Context, vars *integration.CacheTestConfigVars) {
			// Each parallel case gets its own table: the template's $ID.
			vars.ID = strings.ReplaceAll(vars.ID, "-", "_")
		}))
}

// TestCreateTableDDL checks the table the cache creates is the documented one:
// UNIQUE KEY merge-on-write with a STRING value that holds a large checkpoint.
func TestCreateTableDDL(t *testing.T) {
	srv := startSim(t, dorissim.Config{})
	c := newCache(t, fmt.Sprintf("jdbc_url: jdbc:mysql://%s\ntable: ops.checkpoints\n", srv.MySQLAddr()))
	big := `{"version":1,"tables":[` + strings.Repeat(`{"table":"db.t","phase":"binlog","window_start":"2026-01-01 00:00:00"},`, 2000) + `{}]}`
	if err := c.Set(ctxT(t), "pipeline-a", []byte(big), nil); err != nil {
		t.Fatal(err)
	}
	got, err := c.Get(ctxT(t), "pipeline-a")
	if err != nil || string(got) != big {
		t.Fatalf("Get = %d bytes, %v; want the %d bytes set", len(got), err, len(big))
	}
	info, err := srv.Store().Table("ops", "checkpoints")
	if err != nil {
		t.Fatal(err)
	}
	if info.Def.Keys != "UNIQUE_KEYS" || len(info.Def.KeyColumns) != 1 || info.Def.KeyColumns[0] != "cache_key" {
		t.Errorf("table model %s keys %v, want UNIQUE KEY(cache_key)", info.Def.Keys, info.Def.KeyColumns)
	}
	if len(info.Def.Columns) != 3 || info.Def.Columns[1].Name != "cache_value" || info.Def.Columns[1].Type.Kind != storage.String {
		t.Errorf("value column is not a STRING:\n%s", info.ShowCreate)
	}
	rows, err := srv.Query(ctxT(t), "SELECT cache_key, cache_value FROM ops.checkpoints")
	if err != nil || len(rows) != 1 {
		t.Fatalf("rows %v, %v: want one row per key", len(rows), err)
	}
}

// tcpProxy forwards a second address to the simulator's MySQL port: another
// FE of the same cluster.
func tcpProxy(t *testing.T, target string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { l.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			in, err := l.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", target)
			if err != nil {
				in.Close()
				continue
			}
			wg.Add(2)
			go func() { defer wg.Done(); _, _ = io.Copy(out, in); out.Close() }()
			go func() { defer wg.Done(); _, _ = io.Copy(in, out); in.Close() }()
		}
	}()
	return l.Addr().String()
}

// TestSetVisibleOnAnotherFE writes through one FE address and reads through
// another, alternating, as two instances (or a restarted one) would.
func TestSetVisibleOnAnotherFE(t *testing.T) {
	srv := startSim(t, dorissim.Config{})
	fe2 := tcpProxy(t, srv.MySQLAddr())
	a := newCache(t, fmt.Sprintf("jdbc_url: jdbc:mysql://%s\ntable: ops.cp\n", srv.MySQLAddr()))
	b := newCache(t, fmt.Sprintf("jdbc_url: jdbc:mysql://%s\ntable: ops.cp\n", fe2))
	for i := range 20 {
		w, r := a, b
		if i%2 == 1 {
			w, r = b, a
		}
		want := fmt.Sprintf(`{"seq":%d}`, i)
		if err := w.Set(ctxT(t), "k", []byte(want), nil); err != nil {
			t.Fatalf("set %d: %v", i, err)
		}
		got, err := r.Get(ctxT(t), "k")
		if err != nil || string(got) != want {
			t.Fatalf("after set %d the other FE reads %q, %v", i, got, err)
		}
	}
	if err := b.Add(ctxT(t), "k", []byte("x"), nil); !errors.Is(err, service.ErrKeyAlreadyExists) {
		t.Fatalf("Add of a key set through the other FE: %v, want ErrKeyAlreadyExists", err)
	}
	if err := a.Delete(ctxT(t), "k"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Get(ctxT(t), "k"); !errors.Is(err, service.ErrKeyNotFound) {
		t.Fatalf("Get after a Delete on the other FE: %v, want ErrKeyNotFound", err)
	}
}

// TestRefusedConnectionsAreRetried makes the MySQL listener refuse
// connections for a while: a Set inside the outage waits and succeeds, and a
// Set with too short a retry budget fails instead of reporting success.
func TestRefusedConnectionsAreRetried(t *testing.T) {
	srv := startSim(t, dorissim.Config{})
	c := newCache(t, fmt.Sprintf("jdbc_url: jdbc:mysql://%s?connectTimeout=1000\ntable: ops.cp\nbackoff:\n  initial_interval: 50ms\n  max_interval: 500ms\n  max_elapsed_time: 30s\n", srv.MySQLAddr()))
	short := newCache(t, fmt.Sprintf("jdbc_url: jdbc:mysql://%s?connectTimeout=1000\ntable: ops.cp\nbackoff:\n  initial_interval: 50ms\n  max_interval: 100ms\n  max_elapsed_time: 300ms\n", srv.MySQLAddr()))
	if err := c.Set(ctxT(t), "k", []byte("before"), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := short.Get(ctxT(t), "k"); err != nil {
		t.Fatal(err)
	}
	srv.SetFaults(dorissim.Faults{Refuse: "mysql", RefuseFor: 3 * time.Second})
	start := time.Now()
	if err := short.Set(ctxT(t), "k", []byte("lost"), nil); err == nil {
		t.Fatal("a Set during the outage with a 300ms budget reported success")
	} else if !strings.Contains(err.Error(), "gave up") {
		t.Fatalf("short Set error %v, want it to say it gave up", err)
	}
	if err := c.Set(ctxT(t), "k", []byte("after"), nil); err != nil {
		t.Fatalf("Set across the outage: %v", err)
	}
	if time.Since(start) < time.Second {
		t.Fatalf("the outage did not happen (Set returned after %s)", time.Since(start))
	}
	got, err := short.Get(ctxT(t), "k")
	if err != nil || string(got) != "after" {
		t.Fatalf("Get = %q, %v; want after", got, err)
	}
}

func TestConfigErrors(t *testing.T) {
	cases := map[string]string{
		"jdbc_url: http://fe:9030\ntable: ops.cp":                         "jdbc_url",
		"jdbc_url: jdbc:mysql://fe1:9030,fe2:9030\ntable: ops.cp":         "one host",
		"jdbc_url: jdbc:mysql://fe:99999\ntable: ops.cp":                  "jdbc_url",
		"jdbc_url: jdbc:mysql://fe\ntable: ops.cp":                        "missing port",
		"jdbc_url: jdbc:mysql://fe:9030\ntable: cp":                       "db.table",
		"jdbc_url: jdbc:mysql://fe:9030?password=hunter2\ntable: cp":      "db.table",
		"jdbc_url: jdbc:mysql://fe:99999?password=hunter2\ntable: ops.cp": "jdbc_url",
	}
	for yaml, want := range cases {
		pc, err := cache.Spec().ParseYAML(yaml, nil)
		if err != nil {
			t.Fatalf("%s: %v", yaml, err)
		}
		_, err = cache.FromParsed(pc, nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want an error naming %q", yaml, err, want)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%q: the error shows the password: %v", yaml, err)
		}
	}
}

func TestBadKeysAndValues(t *testing.T) {
	c := newCache(t, "jdbc_url: jdbc:mysql://127.0.0.1:1\ntable: ops.cp\n")
	for _, tc := range []struct {
		key   string
		value []byte
		want  string
	}{
		{"", []byte("v"), "empty"},
		{strings.Repeat("k", 513), []byte("v"), "513 bytes"},
		{"k", []byte{0xff, 0xfe}, "UTF-8"},
	} {
		if err := c.Set(ctxT(t), tc.key, tc.value, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Set(%.10q): %v, want %q", tc.key, err, tc.want)
		}
	}
}

func TestPasswordNeverInErrors(t *testing.T) {
	srv := startSim(t, dorissim.Config{Password: "s3cret-pw"})
	c := newCache(t, fmt.Sprintf("jdbc_url: jdbc:mysql://%s\nusername: root\npassword: wrong-pw-123\ntable: ops.cp\n", srv.MySQLAddr()))
	_, err := c.Get(ctxT(t), "k")
	if err == nil {
		t.Fatal("Get with a wrong password succeeded")
	}
	if strings.Contains(err.Error(), "wrong-pw-123") || strings.Contains(err.Error(), "s3cret-pw") {
		t.Fatalf("error shows a password: %v", err)
	}
	if !strings.Contains(err.Error(), "ops.cp") {
		t.Errorf("error does not name the table: %v", err)
	}
}

// TestValueTooLongIsPermanent: a value the column cannot hold fails at once,
// marked permanent for the caller, instead of being retried for the whole
// backoff budget; a refused connection is not marked.
func TestValueTooLongIsPermanent(t *testing.T) {
	srv := startSim(t, dorissim.Config{})
	exec(t, srv, "CREATE DATABASE IF NOT EXISTS ops")
	exec(t, srv, "CREATE TABLE ops.small (`cache_key` VARCHAR(512) NOT NULL, `cache_value` VARCHAR(16) NOT NULL, `update_time` DATETIME(3) NOT NULL) "+
		"UNIQUE KEY(`cache_key`) DISTRIBUTED BY HASH(`cache_key`) BUCKETS 1 PROPERTIES (\"replication_num\" = \"1\")")
	c := newCache(t, fmt.Sprintf("jdbc_url: jdbc:mysql://%s\ntable: ops.small\nbackoff:\n  initial_interval: 50ms\n  max_elapsed_time: 20s\n", srv.MySQLAddr()))
	if err := c.Set(ctxT(t), "k", []byte("short"), nil); err != nil {
		t.Fatal(err)
	}
	var p interface{ Permanent() bool }
	err := c.Set(ctxT(t), "k", []byte(strings.Repeat("x", 17)), nil)
	if err == nil || !errors.As(err, &p) || !p.Permanent() || strings.Contains(err.Error(), "gave up") {
		t.Fatalf("Set of a value longer than the column: %v, want a permanent error without retries", err)
	}
	if _, err := newCache(t, "jdbc_url: jdbc:mysql://127.0.0.1:1?connectTimeout=200\ntable: ops.cp\nbackoff:\n  max_elapsed_time: 300ms\n").Get(ctxT(t), "k"); err == nil || errors.As(err, &p) {
		t.Fatalf("a refused connection: %v, want an error not marked permanent", err)
	}
}
