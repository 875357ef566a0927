package dorissim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"
)

// Demo schema: the orders table of doris-facts §14 with a customer and a
// timestamp column, and a customers table that every order change updates
// in the same transaction, so that the demo shows multi-table transactions.
const (
	DemoDB        = "demo"
	DemoTable     = "orders"
	DemoCustomers = "customers"
	demoSeedRows  = 1000
	demoBatchRows = 200
	demoCreate    = "CREATE TABLE IF NOT EXISTS `demo`.`orders` (\n" +
		"  order_id BIGINT NOT NULL,\n  customer VARCHAR(32),\n  status VARCHAR(16),\n" +
		"  amount DECIMAL(10, 2),\n  updated_at DATETIME(3)\n)\nUNIQUE KEY(order_id)\n" +
		"DISTRIBUTED BY HASH(order_id) BUCKETS 4\nPROPERTIES (\n" +
		"  \"replication_num\" = \"1\",\n  \"enable_unique_key_merge_on_write\" = \"true\",\n" +
		"  \"binlog.enable\" = \"true\",\n  \"binlog.format\" = \"ROW\",\n  \"binlog.need_historical_value\" = \"true\"\n)"
)

const demoCustomersCreate = "CREATE TABLE IF NOT EXISTS `demo`.`customers` (\n" +
	"  customer VARCHAR(32) NOT NULL,\n  last_order BIGINT,\n  last_status VARCHAR(16),\n  updated_at DATETIME(3)\n)\n" +
	"UNIQUE KEY(customer)\nDISTRIBUTED BY HASH(customer) BUCKETS 2\nPROPERTIES (\n" +
	"  \"replication_num\" = \"1\",\n  \"binlog.enable\" = \"true\",\n  \"binlog.format\" = \"ROW\",\n" +
	"  \"binlog.need_historical_value\" = \"true\"\n)"

var demoStatuses = []string{"created", "paid", "shipped", "delivered", "cancelled"}

// demoState remembers the live keys so that updates and deletes hit rows.
type demoState struct {
	mu     sync.Mutex
	nextID int64
	live   []int64
}

// SeedDemo creates demo.orders and demo.customers and loads 1,000 orders.
func (s *Server) SeedDemo(ctx context.Context) error {
	for _, stmt := range []string{"CREATE DATABASE IF NOT EXISTS `demo`", demoCreate, demoCustomersCreate} {
		if err := s.Exec(ctx, stmt); err != nil {
			return fmt.Errorf("demo DDL: %w", err)
		}
	}
	st := &demoState{nextID: 1}
	rng := rand.New(rand.NewPCG(1, 2))
	for st.nextID <= demoSeedRows {
		var vals []string
		for range demoBatchRows {
			vals = append(vals, s.demoValues(st.nextID, rng))
			st.live = append(st.live, st.nextID)
			st.nextID++
		}
		if err := s.Exec(ctx, "INSERT INTO `demo`.`orders` VALUES "+strings.Join(vals, ", ")); err != nil {
			return fmt.Errorf("demo seed rows: %w", err)
		}
	}
	if err := s.Exec(ctx, "INSERT INTO `demo`.`customers` SELECT customer, MAX(order_id), 'created', MAX(updated_at) FROM `demo`.`orders` GROUP BY customer"); err != nil {
		return fmt.Errorf("demo seed customers: %w", err)
	}
	s.demoMu.Lock()
	s.demo = st
	s.demoMu.Unlock()
	return nil
}

// DemoStep commits one transaction: a small random mix of inserts, updates
// and deletes to demo.orders, each also recording the order's customer's
// latest order in demo.customers.
func (s *Server) DemoStep(ctx context.Context, rng *rand.Rand) error {
	s.demoMu.Lock()
	st := s.demo
	s.demoMu.Unlock()
	if st == nil {
		return fmt.Errorf("demo step: SeedDemo has not run")
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	var stmts []string
	live, next := append([]int64(nil), st.live...), st.nextID
	for range 1 + rng.IntN(5) {
		stmts = append(stmts, s.demoChange(&live, &next, rng)...)
	}
	if err := s.ExecTx(ctx, stmts...); err != nil {
		return fmt.Errorf("demo step: %w", err)
	}
	st.live, st.nextID = live, next
	return nil
}

// demoChange returns the statements of one order change and its customer
// update, adjusting the live keys as they will be after the commit.
func (s *Server) demoChange(live *[]int64, next *int64, rng *rand.Rand) []string {
	status := demoStatuses[rng.IntN(len(demoStatuses))]
	customer := fmt.Sprintf("customer-%03d", rng.IntN(500))
	upsert := func(id int64) string {
		return fmt.Sprintf("INSERT INTO `demo`.`customers` VALUES ('%s', %d, '%s', '%s')", customer, id, status, s.demoNow())
	}
	switch p := rng.IntN(10); {
	case p < 4 || len(*live) == 0:
		id := *next
		*next++
		*live = append(*live, id)
		return []string{fmt.Sprintf("INSERT INTO `demo`.`orders` VALUES (%d, '%s', '%s', %d.%02d, '%s')", id, customer, status,
			rng.IntN(1000), rng.IntN(100), s.demoNow()), upsert(id)}
	case p < 8:
		id := (*live)[rng.IntN(len(*live))]
		return []string{fmt.Sprintf("UPDATE `demo`.`orders` SET customer = '%s', status = '%s', amount = %d.%02d, updated_at = '%s' WHERE order_id = %d",
			customer, status, rng.IntN(1000), rng.IntN(100), s.demoNow(), id), upsert(id)}
	default:
		i := rng.IntN(len(*live))
		id := (*live)[i]
		*live = append((*live)[:i], (*live)[i+1:]...)
		return []string{fmt.Sprintf("DELETE FROM `demo`.`orders` WHERE order_id = %d", id)}
	}
}

func (s *Server) demoValues(id int64, rng *rand.Rand) string {
	return fmt.Sprintf("(%d, 'customer-%03d', '%s', %d.%02d, '%s')", id, rng.IntN(500),
		demoStatuses[rng.IntN(len(demoStatuses))], rng.IntN(1000), rng.IntN(100), s.demoNow())
}

func (s *Server) demoNow() string {
	return s.cfg.Clock().UTC().Format("2006-01-02 15:04:05.000")
}

// startDemo seeds the demo table and then changes it every second until the
// server closes.
func (s *Server) startDemo(ctx context.Context) error {
	if err := s.SeedDemo(ctx); err != nil {
		return err
	}
	dctx, cancel := context.WithCancel(context.Background())
	s.stopDemo = cancel
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-dctx.Done():
				return
			case <-t.C:
				if err := s.DemoStep(dctx, rng); err != nil && dctx.Err() == nil {
					s.cfg.Logf("dorissim: %v", err)
				}
			}
		}
	}()
	return nil
}
