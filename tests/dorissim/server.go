package dorissim

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/connpool"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/feapi"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/flightsrv"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/sqlengine"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// Server is a running simulator.
type Server struct {
	cfg       Config
	store     *storage.Store
	engine    *sqlengine.Engine
	flight    *flightsrv.Service
	pool      *connpool.Pool
	httpSrv   *http.Server
	feGRPC    *grpc.Server
	beGRPC    *grpc.Server
	listeners map[string]*refusable
	faults    *faultState
	stats     *requestStats
	stopDemo  context.CancelFunc
	demoMu    sync.Mutex
	demo      *demoState
	wg        sync.WaitGroup
	closeOnce sync.Once
}

// Start binds every listener, serves them and returns once they accept
// connections. ctx bounds only the start-up.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	if cfg.Clock != nil && !cfg.ClockStart.IsZero() {
		return nil, errors.New("dorissim: Config.Clock and Config.ClockStart cannot both be set")
	}
	cfg = withDefaults(cfg)
	pool, err := connpool.New(connpool.Limits{MaxConnections: cfg.QEMaxConnection,
		FlightMaxConnections: cfg.ArrowFlightMaxConnections, UserMaxConnections: cfg.MaxUserConnections,
		WaitTimeout: cfg.WaitTimeout})
	if err != nil {
		return nil, fmt.Errorf("dorissim: Config.MaxUserConnections: %w", err)
	}
	s := &Server{cfg: cfg, listeners: map[string]*refusable{}, stats: newRequestStats(), pool: pool}
	s.faults = &faultState{act: s.actFaults}
	s.store = storage.New(storage.Options{Clock: cfg.Clock, VisibleWaitTimeout: cfg.VisibleWaitTimeout})
	if err := s.listen(); err != nil {
		s.closeListeners()
		return nil, err
	}
	engine, err := sqlengine.New(sqlengine.Config{Store: s.store, User: cfg.User, Password: cfg.Password,
		Frontend: s.frontend, TimeZone: cfg.TimeZone, Pool: s.pool, OnMySQLStatement: s.stats.addMySQLStatement,
		PreTimeTravelFE: cfg.PreTimeTravelFE})
	if err != nil {
		s.closeListeners()
		return nil, fmt.Errorf("start SQL engine: %w", err)
	}
	s.engine = engine
	s.pool.Start()
	s.serve()
	if err := ctx.Err(); err != nil {
		s.Close()
		return nil, fmt.Errorf("start simulator: %w", err)
	}
	if cfg.Demo {
		if err := s.startDemo(ctx); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

func withDefaults(cfg Config) Config {
	if cfg.Host == "" {
		cfg.Host = "127.0.0.1"
	}
	if cfg.User == "" {
		cfg.User = "root"
	}
	if cfg.Clock == nil && !cfg.ClockStart.IsZero() {
		cfg.Clock = clockFrom(cfg.ClockStart)
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	if cfg.VisibleWaitTimeout <= 0 {
		cfg.VisibleWaitTimeout = 5 * time.Second
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	return cfg
}

// clockFrom is a clock that shows start now and runs at normal speed. The
// monotonic reading of time.Since keeps it steady when the host clock steps.
func clockFrom(start time.Time) func() time.Time {
	origin := time.Now()
	return func() time.Time { return start.Add(time.Since(origin)) }
}

func (s *Server) listen() error {
	ports := []struct {
		name string
		port int
		wrap func(net.Conn) net.Conn
	}{
		{listenerHTTP, s.cfg.HTTPPort, nil},
		{listenerMySQL, s.cfg.MySQLPort, func(c net.Conn) net.Conn {
			s.stats.addMySQL()
			return slowConn{Conn: c, latency: s.faults.Latency}
		}},
		{listenerFlight, s.cfg.FlightPort, nil},
		{listenerBEFlight, s.cfg.BEFlightPort, nil},
	}
	for _, p := range ports {
		l, err := listenRefusable(s.cfg.Host, p.port, p.wrap)
		if err != nil {
			return fmt.Errorf("listen %s on %s:%d: %w", p.name, s.cfg.Host, p.port, err)
		}
		s.listeners[p.name] = l
	}
	return nil
}

func (s *Server) serve() {
	b := backend{engine: s.engine, Store: s.store}
	s.flight = flightsrv.New(flightsrv.Config{
		Engine: b, Hooks: s.faults, TLS: s.cfg.TLS != nil, BatchRows: s.cfg.FlightBatchRows, BETCPLocation: s.cfg.AdvertiseBEFlightTCP || s.cfg.PlaintextBEFlight,
		FEAddr: s.FlightAddr, BEAddr: s.BEFlightAddr, Logf: s.cfg.Logf, Pool: s.pool,
	})
	var gopts []grpc.ServerOption
	if s.cfg.TLS != nil {
		gopts = append(gopts, grpc.Creds(credentials.NewTLS(s.cfg.TLS)))
	}
	feOpts := append(s.stats.grpcOptions(s.stats.feFlight), gopts...)
	beOpts := s.stats.grpcOptions(s.stats.beFlight)
	if !s.cfg.PlaintextBEFlight {
		beOpts = append(beOpts, gopts...)
	}
	s.feGRPC, s.beGRPC = s.flight.FEServer(feOpts...), s.flight.BEServer(beOpts...)
	api := feapi.New(feapi.Config{Backend: b, Hooks: faultHooks{faultState: s.faults, clearAll: s.ClearFaults},
		Stats: func() any { return s.Stats() }, Logf: s.cfg.Logf})
	s.httpSrv = &http.Server{Handler: s.withLatency(s.stats.countHTTP(api)), ReadHeaderTimeout: 30 * time.Second}
	var httpL net.Listener = s.listeners[listenerHTTP]
	if s.cfg.TLS != nil {
		tc := s.cfg.TLS.Clone()
		if len(tc.NextProtos) == 0 {
			tc.NextProtos = []string{"http/1.1"}
		}
		httpL = tls.NewListener(httpL, tc)
	}
	s.run(listenerHTTP, func() error { return s.httpSrv.Serve(httpL) })
	s.run(listenerMySQL, func() error { return s.engine.ServeMySQL(s.listeners[listenerMySQL], s.cfg.TLS) })
	s.run(listenerFlight, func() error { return s.feGRPC.Serve(s.listeners[listenerFlight]) })
	s.run(listenerBEFlight, func() error { return s.beGRPC.Serve(s.listeners[listenerBEFlight]) })
}

func (s *Server) run(name string, serve func() error) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		if err := serve(); err != nil && !errors.Is(err, http.ErrServerClosed) && !errors.Is(err, net.ErrClosed) &&
			!errors.Is(err, grpc.ErrServerStopped) {
			s.cfg.Logf("dorissim: %s server stopped: %v", name, err)
		}
	}()
}

func (s *Server) withLatency(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if d := s.faults.Latency(); d > 0 {
			t := time.NewTimer(d)
			select {
			case <-t.C:
			case <-r.Context().Done():
			}
			t.Stop()
		}
		h.ServeHTTP(w, r)
	})
}

func (s *Server) frontend() sqlengine.Frontend {
	return sqlengine.Frontend{
		Host: s.cfg.Host, HTTPPort: s.port(listenerHTTP), QueryPort: s.port(listenerMySQL),
		RPCPort: 9020, EditLogPort: 9010, ArrowFlightSQLPort: s.port(listenerFlight),
	}
}

func (s *Server) port(name string) int {
	_, p, _ := net.SplitHostPort(s.listeners[name].addr)
	n, _ := strconv.Atoi(p)
	return n
}

// HTTPAddr is the FE HTTP host:port.
func (s *Server) HTTPAddr() string { return s.listeners[listenerHTTP].addr }

// MySQLAddr is the FE MySQL host:port.
func (s *Server) MySQLAddr() string { return s.listeners[listenerMySQL].addr }

// FlightAddr is the FE Arrow Flight SQL host:port.
func (s *Server) FlightAddr() string { return s.listeners[listenerFlight].addr }

// BEFlightAddr is the BE Arrow Flight host:port that endpoints point at.
func (s *Server) BEFlightAddr() string { return s.listeners[listenerBEFlight].addr }

// Store is the simulator's storage.
func (s *Server) Store() *storage.Store { return s.store }

// Exec runs one statement as the configured user and discards its rows.
func (s *Server) Exec(ctx context.Context, sql string) error {
	_, err := s.query(ctx, sql, false)
	return err
}

// ExecTx runs stmts in one transaction as the configured user: they commit
// together, with one TSO, or not at all.
func (s *Server) ExecTx(ctx context.Context, stmts ...string) error {
	sess := s.engine.NewSession(s.cfg.User)
	defer sess.Close()
	run := func(sql string) error {
		res, err := sess.Query(ctx, sql)
		if err != nil {
			return err
		}
		return res.Close()
	}
	if err := run("BEGIN"); err != nil {
		return err
	}
	for _, stmt := range stmts {
		if err := run(stmt); err != nil {
			_ = run("ROLLBACK")
			return err
		}
	}
	return run("COMMIT")
}

// Query runs one statement as the configured user and returns its rows.
func (s *Server) Query(ctx context.Context, sql string) ([][]any, error) {
	return s.query(ctx, sql, true)
}

func (s *Server) query(ctx context.Context, sql string, keep bool) ([][]any, error) {
	sess := s.engine.NewSession(s.cfg.User)
	defer sess.Close()
	res, err := sess.Query(ctx, sql)
	if err != nil {
		return nil, err
	}
	defer res.Close()
	var rows [][]any
	for {
		row, err := res.Next()
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		if err != nil {
			return nil, err
		}
		if keep {
			rows = append(rows, row)
		}
	}
}

// SetFaults replaces the current faults with f and triggers its one-shot
// faults (Refuse, IncrVisibleWaitTimeouts, IncrMemoryPressure,
// FailPartitionsReads). POST
// /api/_sim/faults adds instead.
func (s *Server) SetFaults(f Faults) {
	s.faults.clear()
	s.faults.add(f)
}

// ClearFaults removes every fault and ends any refusal early.
func (s *Server) ClearFaults() {
	s.faults.clear()
	s.store.ClearForcedVisibleWaitTimeouts()
	s.store.ClearForcedMemoryPressure()
	s.store.FailPartitionsReads(0)
	if s.engine != nil {
		s.engine.SetPreTimeTravelFE(s.cfg.PreTimeTravelFE)
	}
	for _, l := range s.listeners {
		l.reopen()
	}
}

func (s *Server) actFaults(f Faults) {
	if f.IncrVisibleWaitTimeouts > 0 {
		s.store.ForceVisibleWaitTimeouts(f.IncrVisibleWaitTimeouts)
	}
	if f.IncrMemoryPressure > 0 {
		s.store.ForceMemoryPressure(f.IncrMemoryPressure)
	}
	if f.FailPartitionsReads > 0 {
		s.store.FailPartitionsReads(f.FailPartitionsReads)
	}
	if f.PreTimeTravelFE != nil && s.engine != nil {
		s.cfg.Logf("dorissim: FE without OLAP time travel: %v", *f.PreTimeTravelFE)
		s.engine.SetPreTimeTravelFE(*f.PreTimeTravelFE)
	}
	if l := s.listeners[f.Refuse]; l != nil && f.RefuseFor > 0 {
		s.cfg.Logf("dorissim: refusing %s connections for %s", f.Refuse, f.RefuseFor)
		l.refuse(f.RefuseFor)
	}
}

// Close stops every listener and releases all state.
func (s *Server) Close() error {
	var err error
	s.closeOnce.Do(func() {
		if s.stopDemo != nil {
			s.stopDemo()
		}
		if s.httpSrv != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			if e := s.httpSrv.Shutdown(ctx); e != nil {
				s.httpSrv.Close()
			}
			cancel()
		}
		if s.feGRPC != nil {
			s.feGRPC.Stop()
			s.beGRPC.Stop()
		}
		if s.engine != nil {
			// go-mysql-server reports its own cancellation on a normal close.
			if e := s.engine.Close(); e != nil && !errors.Is(e, context.Canceled) {
				err = fmt.Errorf("close SQL engine: %w", e)
			}
		}
		if s.flight != nil {
			s.flight.Close()
		}
		s.closeListeners()
		s.wg.Wait()
		s.pool.Close()
	})
	return err
}

func (s *Server) closeListeners() {
	for _, l := range s.listeners {
		l.Close()
	}
}
