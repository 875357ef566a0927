package flight

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	pb "github.com/apache/arrow-go/v18/arrow/flight/gen/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
)

// This file holds an in-process Doris-like Flight SQL pair: an FE that does
// Basic -> Bearer and answers GetFlightInfo, and a BE without authentication
// that serves tickets, each on its own port.

var testSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

// endpointSpec is one endpoint of a scripted result.
type endpointSpec struct {
	Where   string    // "be", "fe" (FE location URI), "none" (no location), or a raw URI
	Batches [][]int64 // ids per batch; names are derived from ids
	FailGet bool      // DoGet of this ticket fails with INTERNAL
	// Gate, when set, holds the stream after the first batch until closed,
	// so a test can prove batches reach the caller before the stream ends.
	Gate chan struct{}
}

// scenario is what the FE does for one SQL text.
type scenario struct {
	Err       error
	Header    metadata.MD
	Trailer   metadata.MD
	Endpoints []endpointSpec
}

type ticketData struct {
	spec endpointSpec
}

// cluster is the shared state of the test FE and BE.
type cluster struct {
	user, pass string

	mu         sync.Mutex
	scenarios  map[string]scenario
	tickets    map[string]ticketData
	served     map[string][]string // ticket -> servers ("fe"/"be") that served it
	tokens     map[string]bool
	nextToken  int
	handshakes int
	executes   int
	expireNext bool     // next GetFlightInfo invalidates every token first
	expireAll  bool     // every GetFlightInfo invalidates every token first
	feAuth     []string // authorization seen by FE GetFlightInfo

	feAddr, beAddr string
	tls            bool
}

func newCluster(user, pass string) *cluster {
	return &cluster{
		user: user, pass: pass,
		scenarios: make(map[string]scenario),
		tickets:   make(map[string]ticketData),
		served:    make(map[string][]string),
		tokens:    make(map[string]bool),
	}
}

func (c *cluster) script(sql string, s scenario) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.scenarios[sql] = s
}

func (c *cluster) servedBy(ticket string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.served[ticket]...)
}

func (c *cluster) counts() (handshakes, executes int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.handshakes, c.executes
}

// start runs FE and BE gRPC servers on 127.0.0.1 ports; tlsConf nil means
// plaintext.
func (c *cluster) start(t *testing.T, tlsConf *tls.Config) {
	t.Helper()
	c.tls = tlsConf != nil
	c.beAddr = serveFlight(t, &beServer{c: c}, tlsConf)
	c.feAddr = serveFlight(t, &feServer{c: c}, tlsConf)
}

func serveFlight(t *testing.T, svc flight.FlightServer, tlsConf *tls.Config) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	var opts []grpc.ServerOption
	if tlsConf != nil {
		opts = append(opts, grpc.Creds(credentials.NewTLS(tlsConf)))
	}
	s := grpc.NewServer(opts...)
	flight.RegisterFlightServiceServer(s, svc)
	go func() { _ = s.Serve(lis) }()
	t.Cleanup(s.Stop)
	return lis.Addr().String()
}

func (c *cluster) location(addr string) string {
	if c.tls {
		return "grpc+tls://" + addr
	}
	return "grpc+tcp://" + addr
}

type feServer struct {
	flight.BaseFlightServer
	c *cluster
}

func (s *feServer) Handshake(stream flight.FlightService_HandshakeServer) error {
	md, _ := metadata.FromIncomingContext(stream.Context())
	user, pass, ok := parseBasic(md.Get("authorization"))
	c := s.c
	c.mu.Lock()
	c.handshakes++
	if !ok || user != c.user || pass != c.pass {
		c.mu.Unlock()
		return status.Error(codes.Unauthenticated, "Access denied for user '"+user+"'")
	}
	c.nextToken++
	tok := fmt.Sprintf("tok-%d", c.nextToken)
	c.tokens[tok] = true
	c.mu.Unlock()
	return stream.SetHeader(metadata.Pairs("authorization", "Bearer "+tok))
}

// parseBasic accepts padded and unpadded base64, as Doris does.
func parseBasic(vals []string) (user, pass string, ok bool) {
	if len(vals) == 0 || !strings.HasPrefix(vals[0], "Basic ") {
		return "", "", false
	}
	enc := strings.TrimPrefix(vals[0], "Basic ")
	raw, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(enc, "="))
	if err != nil {
		return "", "", false
	}
	user, pass, ok = strings.Cut(string(raw), ":")
	return user, pass, ok
}

func (c *cluster) checkBearer(ctx context.Context) error {
	md, _ := metadata.FromIncomingContext(ctx)
	vals := md.Get("authorization")
	if len(vals) != 1 || !strings.HasPrefix(vals[0], "Bearer ") || !c.tokens[strings.TrimPrefix(vals[0], "Bearer ")] {
		return status.Error(codes.Unauthenticated, "invalid bearer token")
	}
	return nil
}

func (s *feServer) GetFlightInfo(ctx context.Context, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	c := s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	md, _ := metadata.FromIncomingContext(ctx)
	c.feAuth = append(c.feAuth, strings.Join(md.Get("authorization"), "|"))
	if c.expireNext || c.expireAll {
		c.expireNext = false
		clear(c.tokens)
	}
	if err := c.checkBearer(ctx); err != nil {
		return nil, err
	}
	c.executes++
	sql, err := statementSQL(desc)
	if err != nil {
		return nil, err
	}
	sc, ok := c.scenarios[sql]
	if !ok {
		return nil, status.Error(codes.Internal, "get flight info statement failed, errCode = 2, detailMessage = Unknown statement: "+sql)
	}
	if sc.Err != nil {
		if sc.Header != nil {
			_ = grpc.SetHeader(ctx, sc.Header)
		}
		if sc.Trailer != nil {
			_ = grpc.SetTrailer(ctx, sc.Trailer)
		}
		return nil, sc.Err
	}
	info := &flight.FlightInfo{
		Schema:           flight.SerializeSchema(testSchema, memory.DefaultAllocator),
		FlightDescriptor: desc,
		TotalRecords:     -1, TotalBytes: -1,
	}
	for i, ep := range sc.Endpoints {
		tk := fmt.Sprintf("%s#%d#%d", sql, c.executes, i)
		c.tickets[tk] = ticketData{spec: ep}
		fe := &flight.FlightEndpoint{Ticket: &flight.Ticket{Ticket: []byte(tk)}}
		switch ep.Where {
		case "be":
			fe.Location = []*flight.Location{{Uri: c.location(c.beAddr)}}
		case "fe":
			fe.Location = []*flight.Location{{Uri: c.location(c.feAddr)}}
		case "none":
		default:
			fe.Location = []*flight.Location{{Uri: ep.Where}}
		}
		info.Endpoint = append(info.Endpoint, fe)
	}
	return info, nil
}

func statementSQL(desc *flight.FlightDescriptor) (string, error) {
	var a anypb.Any
	if err := proto.Unmarshal(desc.GetCmd(), &a); err != nil {
		return "", status.Error(codes.InvalidArgument, "bad command")
	}
	var q pb.CommandStatementQuery
	if err := a.UnmarshalTo(&q); err != nil {
		return "", status.Error(codes.InvalidArgument, "not a CommandStatementQuery: "+a.GetTypeUrl())
	}
	return q.GetQuery(), nil
}

func (s *feServer) DoGet(tk *flight.Ticket, stream flight.FlightService_DoGetServer) error {
	s.c.mu.Lock()
	err := s.c.checkBearer(stream.Context())
	s.c.mu.Unlock()
	if err != nil {
		return err
	}
	return s.c.serve("fe", tk, stream)
}

type beServer struct {
	flight.BaseFlightServer
	c *cluster
}

func (s *beServer) DoGet(tk *flight.Ticket, stream flight.FlightService_DoGetServer) error {
	return s.c.serve("be", tk, stream)
}

// serve streams a ticket's batches; like Doris, a ticket is good once.
func (c *cluster) serve(server string, tk *flight.Ticket, stream flight.FlightService_DoGetServer) error {
	c.mu.Lock()
	key := string(tk.GetTicket())
	td, ok := c.tickets[key]
	c.served[key] = append(c.served[key], server)
	delete(c.tickets, key)
	c.mu.Unlock()
	if !ok {
		return status.Error(codes.NotFound, "unknown or already fetched ticket")
	}
	if td.spec.FailGet {
		return status.Error(codes.Internal, "fragment instance cancelled")
	}
	w := flight.NewRecordWriter(stream, ipc.WithSchema(testSchema))
	defer w.Close()
	for i, ids := range td.spec.Batches {
		if i == 1 && td.spec.Gate != nil {
			select {
			case <-td.spec.Gate:
			case <-stream.Context().Done():
				return stream.Context().Err()
			}
		}
		rec := buildBatch(ids)
		err := w.Write(rec)
		rec.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

func buildBatch(ids []int64) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, testSchema)
	defer b.Release()
	for _, id := range ids {
		b.Field(0).(*array.Int64Builder).Append(id)
		if id%2 == 0 {
			b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("row-%d", id))
		} else {
			b.Field(1).(*array.StringBuilder).AppendNull()
		}
	}
	return b.NewRecordBatch()
}
