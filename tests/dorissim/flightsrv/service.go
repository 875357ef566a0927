package flightsrv

import (
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/connpool"
)

// Config configures the FE and BE Flight servers.
type Config struct {
	Engine Engine
	Hooks  Hooks // nil = NopHooks
	// FEAddr and BEAddr return the advertised host:port of each server; they
	// are read per query because listeners may be bound after New.
	FEAddr, BEAddr func() string
	TLS            bool          // advertise grpc+tls:// locations
	BatchRows      int           // rows per record batch; default 4096
	TicketTTL      time.Duration // unfetched results are released after this; default 5m
	Logf           func(format string, args ...any)
	// Pool admits the FE's sessions; nil is a pool of Doris's default
	// limits, of this service alone.
	Pool *connpool.Pool

	// BETCPLocation advertises the BE as grpc+tcp:// even with TLS.
	BETCPLocation bool
}

// Service holds the state shared by the FE and BE servers: bearer tokens
// with their sessions, and pending results keyed by ticket handle.
type Service struct {
	cfg     Config
	tokens  *tokens
	tickets *tickets
	mem     memory.Allocator
}

// New creates the Flight service.
func New(cfg Config) *Service {
	if cfg.Hooks == nil {
		cfg.Hooks = NopHooks{}
	}
	if cfg.BatchRows <= 0 {
		cfg.BatchRows = 4096
	}
	if cfg.TicketTTL <= 0 {
		cfg.TicketTTL = 5 * time.Minute
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	if cfg.Pool == nil {
		// Doris's defaults are valid limits, so this cannot fail.
		cfg.Pool, _ = connpool.New(connpool.Limits{})
	}
	return &Service{
		cfg:     cfg,
		tokens:  newTokens(cfg.Engine, cfg.Pool),
		tickets: newTickets(cfg.TicketTTL, cfg.Logf),
		mem:     memory.DefaultAllocator,
	}
}

// stopWaits makes Stop return only after every handler has: Close releases
// the sessions and results a DoGet still streaming would otherwise read
// while they are closed (a data race the race detector found at shutdown).
var stopWaits = grpc.WaitForHandlers(true)

// FEServer builds the FE gRPC server (authenticated).
func (s *Service) FEServer(opts ...grpc.ServerOption) *grpc.Server {
	opts = append(opts, stopWaits, grpc.ChainUnaryInterceptor(s.unaryAuth), grpc.ChainStreamInterceptor(s.streamAuth))
	g := grpc.NewServer(opts...)
	flight.RegisterFlightServiceServer(g, &feServer{svc: s})
	return g
}

// BEServer builds the BE gRPC server (no authentication: the ticket is the
// authorization, as on a Doris BE).
func (s *Service) BEServer(opts ...grpc.ServerOption) *grpc.Server {
	opts = append(opts, stopWaits, grpc.ChainUnaryInterceptor(s.beUnary), grpc.ChainStreamInterceptor(s.beStream))
	g := grpc.NewServer(opts...)
	flight.RegisterFlightServiceServer(g, &beServer{svc: s})
	return g
}

// PendingTickets is the number of executed results not yet fetched.
func (s *Service) PendingTickets() int { return s.tickets.len() }

// Close releases every pending result and session.
func (s *Service) Close() {
	s.tickets.closeAll()
	s.tokens.closeAll()
}

func (s *Service) location(onFE bool) string {
	scheme := "grpc+tcp://"
	if s.cfg.TLS && (onFE || !s.cfg.BETCPLocation) {
		scheme = "grpc+tls://"
	}
	if onFE {
		return scheme + s.cfg.FEAddr()
	}
	return scheme + s.cfg.BEAddr()
}
