// Package harness holds what the end-to-end, fault and crash suites share: a
// simulator per test, tables with a row binlog, a seeded workload, a
// collector of doris_binlog events and a replay oracle that rebuilds a table
// from its events.
package harness

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
)

// StartSim starts an in-process dorissim on free loopback ports.
func StartSim(t testing.TB, cfg dorissim.Config) *dorissim.Server {
	t.Helper()
	if cfg.Host == "" {
		cfg.Host = "127.0.0.1"
	}
	if cfg.User == "" {
		cfg.User = "root"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	srv, err := dorissim.Start(ctx, cfg)
	if err != nil {
		t.Fatalf("starting dorissim: %v", err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}

// Exec runs statements on the simulator, failing the test on error.
func Exec(t testing.TB, srv *dorissim.Server, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := srv.Exec(ctx, s)
		cancel()
		if err != nil {
			t.Fatalf("exec %q: %v", s, err)
		}
	}
}

// TableOpts shapes CreateTable's table.
type TableOpts struct {
	Duplicate      bool // DUPLICATE KEY instead of UNIQUE KEY
	NoBinlog       bool
	NoBeforeImages bool
	Buckets        int
	TTLSeconds     int
}

// CreateTable creates db.table (id BIGINT key, name VARCHAR, qty INT,
// amount DECIMAL(10,2)) with a row binlog unless opts say otherwise.
func CreateTable(t testing.TB, srv *dorissim.Server, db, table string, opts TableOpts) {
	t.Helper()
	model := "UNIQUE KEY(`id`)"
	if opts.Duplicate {
		model = "DUPLICATE KEY(`id`)"
	}
	buckets := opts.Buckets
	if buckets == 0 {
		buckets = 4
	}
	props := []string{`"replication_num" = "1"`}
	if !opts.NoBinlog {
		props = append(props, `"binlog.enable" = "true"`, `"binlog.format" = "ROW"`)
		if !opts.Duplicate && !opts.NoBeforeImages {
			props = append(props, `"binlog.need_historical_value" = "true"`)
		}
		if opts.TTLSeconds > 0 {
			props = append(props, fmt.Sprintf(`"binlog.ttl_seconds" = "%d"`, opts.TTLSeconds))
		}
	}
	Exec(t, srv,
		"CREATE DATABASE IF NOT EXISTS `"+db+"`",
		fmt.Sprintf("CREATE TABLE `%s`.`%s` (\n  `id` BIGINT NOT NULL,\n  `name` VARCHAR(64),\n  `qty` INT,\n  `amount` DECIMAL(10, 2)\n) %s\nDISTRIBUTED BY HASH(`id`) BUCKETS %d\nPROPERTIES (%s)",
			db, table, model, buckets, strings.Join(props, ", ")),
	)
}

// Workload applies a seeded random mix of inserts, updates and deletes to a
// CreateTable table, one transaction per step, and remembers the live keys.
type Workload struct {
	srv       *dorissim.Server
	db, table string
	rng       *rand.Rand
	live      map[int64]bool
	nextID    int64
	Steps     int
}

// NewWorkload starts a workload over db.table with the given seed.
func NewWorkload(srv *dorissim.Server, db, table string, seed uint64) *Workload {
	return &Workload{srv: srv, db: db, table: table, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b9)), live: map[int64]bool{}, nextID: 1}
}

// Insert adds n new rows in one transaction.
func (w *Workload) Insert(ctx context.Context, n int) error {
	vals := make([]string, 0, n)
	for range n {
		id := w.nextID
		w.nextID++
		vals = append(vals, w.rowValues(id))
		w.live[id] = true
	}
	return w.srv.Exec(ctx, fmt.Sprintf("INSERT INTO `%s`.`%s` (`id`, `name`, `qty`, `amount`) VALUES %s", w.db, w.table, strings.Join(vals, ", ")))
}

func (w *Workload) rowValues(id int64) string {
	return fmt.Sprintf("(%d, 'name-%d-%d', %d, %d.%02d)", id, id, w.rng.IntN(1000), w.rng.IntN(100), w.rng.IntN(10000), w.rng.IntN(100))
}

// Step applies one random transaction: insert, update (by INSERT of an
// existing key or UPDATE ... WHERE), or delete.
func (w *Workload) Step(ctx context.Context) error {
	w.Steps++
	keys := w.liveKeys()
	switch r := w.rng.IntN(10); {
	case len(keys) == 0 || r < 4:
		return w.Insert(ctx, 1+w.rng.IntN(3))
	case r < 6:
		id := keys[w.rng.IntN(len(keys))]
		return w.srv.Exec(ctx, fmt.Sprintf("INSERT INTO `%s`.`%s` (`id`, `name`, `qty`, `amount`) VALUES %s", w.db, w.table, w.rowValues(id)))
	case r < 8:
		id := keys[w.rng.IntN(len(keys))]
		return w.srv.Exec(ctx, fmt.Sprintf("UPDATE `%s`.`%s` SET `qty` = `qty` + 1, `name` = 'upd-%d' WHERE `id` = %d", w.db, w.table, w.Steps, id))
	default:
		id := keys[w.rng.IntN(len(keys))]
		delete(w.live, id)
		return w.srv.Exec(ctx, fmt.Sprintf("DELETE FROM `%s`.`%s` WHERE `id` = %d", w.db, w.table, id))
	}
}

// liveKeys returns the live keys in ascending order, so that a seed always
// picks the same rows.
func (w *Workload) liveKeys() []int64 {
	keys := make([]int64, 0, len(w.live))
	for id := int64(1); id < w.nextID; id++ {
		if w.live[id] {
			keys = append(keys, id)
		}
	}
	return keys
}

// NextID is the key the next inserted row gets; keys below it were inserted.
func (w *Workload) NextID() int64 { return w.nextID }

// Tx runs stmts in one transaction over the simulator's MySQL protocol, so
// that they commit together with one TSO.
func Tx(t testing.TB, srv *dorissim.Server, stmts ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, err := sql.Open("mysql", "root@tcp("+srv.MySQLAddr()+")/")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatalf("begin: %v", err)
	}
	for _, s := range stmts {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			_ = tx.Rollback()
			t.Fatalf("exec %q in a transaction: %v", s, err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatalf("commit: %v", err)
	}
}
