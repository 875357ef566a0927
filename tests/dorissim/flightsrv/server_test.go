package flightsrv

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

type testHooks struct {
	mu                  sync.Mutex
	failInfo, failDoGet int
	cut                 int64
	cutSet              bool
	latency             time.Duration
}

func (h *testHooks) Latency() time.Duration { h.mu.Lock(); defer h.mu.Unlock(); return h.latency }
func (h *testHooks) TakeFailGetFlightInfo() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.failInfo > 0 {
		h.failInfo--
		return true
	}
	return false
}
func (h *testHooks) TakeFailDoGet() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.failDoGet > 0 {
		h.failDoGet--
		return true
	}
	return false
}
func (h *testHooks) TakeCutDoGet() (int64, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ok := h.cutSet
	h.cutSet = false
	return h.cut, ok
}
func (h *testHooks) RearmCutDoGet(n int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.cut, h.cutSet = n, true
}

type env struct {
	svc    *Service
	engine *fakeEngine
	hooks  *testHooks
	fe, be string
}

func startEnv(t *testing.T, mod func(*Config)) *env {
	t.Helper()
	feL, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	beL, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e := &env{engine: &fakeEngine{}, hooks: &testHooks{}, fe: feL.Addr().String(), be: beL.Addr().String()}
	cfg := Config{Engine: e.engine, Hooks: e.hooks, BatchRows: 3,
		FEAddr: func() string { return e.fe }, BEAddr: func() string { return e.be }}
	if mod != nil {
		mod(&cfg)
	}
	e.svc = New(cfg)
	feS, beS := e.svc.FEServer(), e.svc.BEServer()
	go feS.Serve(feL)
	go beS.Serve(beL)
	t.Cleanup(func() { feS.Stop(); beS.Stop(); e.svc.Close() })
	return e
}

func dial(t *testing.T, addr string) *flightsql.Client {
	t.Helper()
	c, err := flightsql.NewClient(addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// login dials the FE and performs the Basic handshake.
func login(t *testing.T, e *env) (*flightsql.Client, context.Context) {
	c := dial(t, e.fe)
	ctx, err := c.Client.AuthenticateBasicToken(testCtx(t), "root", "secret")
	if err != nil {
		t.Fatalf("handshake: %v", err)
	}
	return c, ctx
}

// fetch runs sql and reads every endpoint at its location.
func fetch(t *testing.T, e *env, c *flightsql.Client, ctx context.Context, sql string) (*arrow.Schema, []arrow.RecordBatch, error) {
	t.Helper()
	info, err := c.Execute(ctx, sql)
	if err != nil {
		return nil, nil, err
	}
	if info.TotalRecords != -1 || info.TotalBytes != -1 || len(info.Endpoint) != 1 {
		t.Fatalf("flight info: records=%d bytes=%d endpoints=%d", info.TotalRecords, info.TotalBytes, len(info.Endpoint))
	}
	ep := info.Endpoint[0]
	addr := strings.TrimPrefix(ep.Location[0].Uri, "grpc+tcp://")
	r, err := dial(t, addr).DoGet(ctx, ep.Ticket)
	if err != nil {
		return nil, nil, err
	}
	defer r.Release()
	var recs []arrow.RecordBatch
	for r.Next() {
		rec := r.RecordBatch()
		rec.Retain()
		recs = append(recs, rec)
	}
	t.Cleanup(func() {
		for _, r := range recs {
			r.Release()
		}
	})
	return r.Schema(), recs, r.Err()
}

func TestHandshakeAndAuth(t *testing.T) {
	e := startEnv(t, nil)
	c := dial(t, e.fe)
	if _, err := c.Client.AuthenticateBasicToken(testCtx(t), "root", "wrong"); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("bad password: got %v", err)
	}
	if _, err := c.Execute(testCtx(t), "ints 1"); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("no token: got %v", err)
	}
	stale := metadata.AppendToOutgoingContext(testCtx(t), "authorization", "Bearer nope")
	_, err := c.Execute(stale, "ints 1")
	if status.Code(err) != codes.Unauthenticated || !strings.Contains(err.Error(), "invalid bearer token") {
		t.Fatalf("stale token: got %v", err)
	}
	// Padded base64, as Java clients send it.
	padded := metadata.AppendToOutgoingContext(testCtx(t), "authorization", "Basic cm9vdDpzZWNyZXQ=")
	if _, err := c.Execute(padded, "ints 1"); err != nil {
		t.Fatalf("padded basic: %v", err)
	}
	_, ctx := login(t, e)
	if _, _, err := fetch(t, e, c, ctx, "ints 2"); err != nil {
		t.Fatalf("bearer query: %v", err)
	}
}

func TestSessionVariablesPersistPerToken(t *testing.T) {
	e := startEnv(t, nil)
	c, ctx := login(t, e)
	info, err := c.Execute(ctx, "SET time_zone = utc")
	if err != nil {
		t.Fatal(err)
	}
	if got := info.Endpoint[0].Location[0].Uri; got != "grpc+tcp://"+e.fe {
		t.Fatalf("SET endpoint at %s, want the FE", got)
	}
	r, err := c.DoGet(ctx, info.Endpoint[0].Ticket)
	if err != nil {
		t.Fatal(err)
	}
	for r.Next() {
	}
	r.Release()
	_, recs, err := fetch(t, e, c, ctx, "getvar time_zone")
	if err != nil {
		t.Fatal(err)
	}
	if v := recs[0].Column(0).(*array.String).Value(0); v != "utc" {
		t.Fatalf("time_zone in same token = %q", v)
	}
	c2, ctx2 := login(t, e)
	_, recs, err = fetch(t, e, c2, ctx2, "getvar time_zone")
	if err != nil {
		t.Fatal(err)
	}
	if v := recs[0].Column(0).(*array.String).Value(0); v != "" {
		t.Fatalf("time_zone leaked into another token: %q", v)
	}
}

func TestBatchingAndEmptyResult(t *testing.T) {
	e := startEnv(t, nil)
	c, ctx := login(t, e)
	schema, recs, err := fetch(t, e, c, ctx, "ints 7")
	if err != nil {
		t.Fatal(err)
	}
	var sizes []int64
	var next int64
	for _, r := range recs {
		sizes = append(sizes, r.NumRows())
		col := r.Column(0).(*array.Int64)
		for i := 0; i < col.Len(); i++ {
			if col.Value(i) != next {
				t.Fatalf("row %d = %d", next, col.Value(i))
			}
			next++
		}
	}
	if next != 7 || len(sizes) != 3 || sizes[0] != 3 || sizes[2] != 1 {
		t.Fatalf("batches %v", sizes)
	}
	if schema.Field(0).Type.ID() != arrow.INT64 {
		t.Fatalf("schema %v", schema)
	}
	schema, recs, err = fetch(t, e, c, ctx, "ints 0")
	if err != nil || len(recs) != 0 || schema == nil || schema.NumFields() != 1 || schema.Field(0).Name != "id" {
		t.Fatalf("empty result: schema=%v recs=%d err=%v", schema, len(recs), err)
	}
}

func TestTicketSingleUseAndUnknown(t *testing.T) {
	e := startEnv(t, nil)
	c, ctx := login(t, e)
	info, err := c.Execute(ctx, "ints 2")
	if err != nil {
		t.Fatal(err)
	}
	be := dial(t, e.be)
	readAll := func() error {
		r, err := be.DoGet(ctx, info.Endpoint[0].Ticket)
		if err != nil {
			return err
		}
		defer r.Release()
		for r.Next() {
		}
		return r.Err()
	}
	if err := readAll(); err != nil {
		t.Fatalf("first DoGet: %v", err)
	}
	if err := readAll(); err == nil {
		t.Fatal("second DoGet of the same ticket succeeded")
	}
	bogus, _ := ticketFor("no-such-handle")
	r, err := be.DoGet(ctx, &flight.Ticket{Ticket: bogus})
	if err == nil {
		for r.Next() {
		}
		err = r.Err()
		r.Release()
	}
	if err == nil {
		t.Fatal("unknown ticket accepted")
	}
}

func TestUnfetchedTicketsExpire(t *testing.T) {
	e := startEnv(t, func(c *Config) { c.TicketTTL = 50 * time.Millisecond })
	c, ctx := login(t, e)
	if _, err := c.Execute(ctx, "ints 5"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for e.svc.PendingTickets() != 0 || e.engine.open.Load() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("pending=%d open results=%d", e.svc.PendingTickets(), e.engine.open.Load())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestErrorMapping(t *testing.T) {
	e := startEnv(t, nil)
	c, ctx := login(t, e)
	_, err := c.Execute(ctx, "unknown thing")
	if status.Code(err) != codes.Internal || !strings.Contains(err.Error(), "get flight info statement failed") ||
		!strings.Contains(err.Error(), "Unknown statement unknown thing") || !strings.Contains(err.Error(), "error code: 1105") {
		t.Fatalf("internal: %v", err)
	}
	for _, code := range []string{"5100", "5101"} {
		var hdr, trl metadata.MD
		_, err := c.Execute(ctx, "fail "+code, grpc.Header(&hdr), grpc.Trailer(&trl))
		if status.Code(err) != codes.Unavailable || !strings.Contains(status.Convert(err).Message(), "simulated "+code) {
			t.Fatalf("%s: %v", code, err)
		}
		if got := trl.Get("doris-error-code"); len(got) != 1 || got[0] != code {
			t.Fatalf("%s trailer code %v", code, trl)
		}
		if got := trl.Get("doris-error-name"); len(got) != 1 || !strings.HasPrefix(got[0], "ERR_INCR_") {
			t.Fatalf("%s trailer name %v", code, trl)
		}
		if got := hdr.Get("doris-error-code"); len(got) != 1 || got[0] != code {
			t.Fatalf("%s header code %v", code, hdr)
		}
	}
	if _, _, err := fetch(t, e, c, ctx, "badvalue"); status.Code(err) != codes.Internal {
		t.Fatalf("malformed engine value: %v", err)
	}
}

func TestUnimplementedCalls(t *testing.T) {
	e := startEnv(t, nil)
	c, ctx := login(t, e)
	if _, err := c.GetExecuteSchema(ctx, "ints 1"); status.Code(err) != codes.Unimplemented {
		t.Fatalf("GetSchema: %v", err)
	}
	lf, err := c.Client.ListFlights(ctx, &flight.Criteria{})
	if err == nil {
		_, err = lf.Recv()
	}
	if status.Code(err) != codes.Unimplemented {
		t.Fatalf("ListFlights: %v", err)
	}
}

func TestFaults(t *testing.T) {
	e := startEnv(t, nil)
	c, ctx := login(t, e)
	e.hooks.failInfo = 1
	if _, err := c.Execute(ctx, "ints 1"); status.Code(err) != codes.Unavailable {
		t.Fatalf("FailGetFlightInfo: %v", err)
	}
	if _, err := c.Execute(ctx, "ints 1"); err != nil {
		t.Fatalf("after fault: %v", err)
	}
	e.hooks.failDoGet = 1
	if _, _, err := fetch(t, e, c, ctx, "ints 1"); status.Code(err) != codes.Unavailable {
		t.Fatalf("FailDoGet: %v", err)
	}
	e.hooks.cut, e.hooks.cutSet = 4, true
	// A stream shorter than the cut passes whole and leaves the cut armed.
	if _, recs, err := fetch(t, e, c, ctx, "ints 2"); err != nil || len(recs) == 0 || recs[0].NumRows() != 2 {
		t.Fatalf("short stream under a cut: %v", err)
	}
	_, recs, err := fetch(t, e, c, ctx, "ints 10")
	var n int64
	for _, r := range recs {
		n += r.NumRows()
	}
	if status.Code(err) != codes.Unavailable || n != 4 {
		t.Fatalf("cut: rows=%d err=%v", n, err)
	}
	if _, recs, err := fetch(t, e, c, ctx, "ints 10"); err != nil || len(recs) != 4 {
		t.Fatalf("after cut: %d batches, %v", len(recs), err)
	}
	e.hooks.mu.Lock()
	e.hooks.latency = 30 * time.Millisecond
	e.hooks.mu.Unlock()
	start := time.Now()
	if _, err := c.Execute(ctx, "ints 1"); err != nil {
		t.Fatal(err)
	}
	if time.Since(start) < 30*time.Millisecond {
		t.Fatal("latency fault not applied")
	}
	_ = errors.New
	_ = io.EOF
}
