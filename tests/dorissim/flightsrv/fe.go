package flightsrv

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	pb "github.com/apache/arrow-go/v18/arrow/flight/gen/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
)

// feServer is the FE Flight SQL endpoint. Methods it does not override
// (GetSchema, ListFlights, DoExchange, DoPut, ...) answer UNIMPLEMENTED as the
// Doris FE does.
type feServer struct {
	pb.UnimplementedFlightServiceServer
	svc *Service
}

// Handshake exchanges Basic credentials for a bearer token returned in the
// response headers: it opens a session, or is refused with
// RESOURCE_EXHAUSTED when the connection pool has no room for it.
func (f *feServer) Handshake(stream pb.FlightService_HandshakeServer) error {
	e, err := f.svc.tokens.authenticate(stream.Context())
	if err != nil {
		return err
	}
	defer e.conn.Begin()()
	if err := stream.SetHeader(metadata.Pairs("authorization", "Bearer "+e.token)); err != nil {
		return fmt.Errorf("handshake header: %w", err)
	}
	return nil
}

// GetFlightInfo runs the statement in the token's session and hands back a
// ticket for the result, located on the BE (or on the FE for statements
// without a result set).
func (f *feServer) GetFlightInfo(ctx context.Context, desc *pb.FlightDescriptor) (*pb.FlightInfo, error) {
	if f.svc.cfg.Hooks.TakeFailGetFlightInfo() {
		return nil, status.Error(codes.Unavailable, "get flight info statement failed, simulated FE failure")
	}
	sql, err := statementQuery(desc)
	if err != nil {
		return nil, err
	}
	e := entryFrom(ctx)
	if e == nil {
		return nil, status.Error(codes.Unauthenticated, "no authorization header")
	}
	p, err := f.svc.execute(ctx, e, sql)
	if err != nil {
		return nil, err
	}
	return f.svc.flightInfo(desc, p)
}

// DoGet serves FE-answered results (SET, USE, ...).
func (f *feServer) DoGet(t *pb.Ticket, stream pb.FlightService_DoGetServer) error {
	return f.svc.doGet(t, stream, true)
}

func statementQuery(desc *pb.FlightDescriptor) (string, error) {
	if desc.GetType() != pb.FlightDescriptor_CMD {
		return "", status.Error(codes.Unimplemented, "only CMD flight descriptors are supported")
	}
	var anyCmd anypb.Any
	if err := proto.Unmarshal(desc.Cmd, &anyCmd); err != nil {
		return "", status.Errorf(codes.InvalidArgument, "unable to parse command: %v", err)
	}
	var q pb.CommandStatementQuery
	if !anyCmd.MessageIs(&q) {
		return "", status.Errorf(codes.Unimplemented, "command %s is not supported", anyCmd.TypeUrl)
	}
	if err := anyCmd.UnmarshalTo(&q); err != nil {
		return "", status.Errorf(codes.InvalidArgument, "unable to parse CommandStatementQuery: %v", err)
	}
	if strings.TrimSpace(q.Query) == "" {
		return "", status.Error(codes.InvalidArgument, "get flight info statement failed, empty query")
	}
	return q.Query, nil
}

// detacher is a session that can hand its current result over, so that the
// token's next statement does not end a result still waiting for its DoGet.
type detacher interface{ Detach() }

// execute runs sql and registers its result. The result outlives the RPC, so
// it runs on a context that is cancelled only when the ticket is released.
func (s *Service) execute(ctx context.Context, e *tokenEntry, sql string) (*pending, error) {
	qctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	e.mu.Lock()
	res, err := e.sess.Query(qctx, sql)
	if d, ok := e.sess.(detacher); ok && err == nil {
		d.Detach()
	}
	e.mu.Unlock()
	if err != nil {
		cancel()
		return nil, queryError(ctx, err)
	}
	cols := res.Columns()
	if len(cols) == 0 {
		res.Close()
		cancel()
		return &pending{onFE: true, schema: arrow.NewSchema(nil, nil), cancel: func() {}}, nil
	}
	specs, schema, err := specsFor(cols)
	if err != nil {
		res.Close()
		cancel()
		return nil, status.Errorf(codes.Internal, "get flight info statement failed, %v", err)
	}
	return &pending{res: res, cols: specs, schema: schema, cancel: cancel}, nil
}

func (s *Service) flightInfo(desc *pb.FlightDescriptor, p *pending) (*pb.FlightInfo, error) {
	schema := flight.SerializeSchema(p.schema, s.mem)
	handle := s.tickets.put(p)
	ticket, err := ticketFor(handle)
	if err != nil {
		s.tickets.take(handle).release()
		return nil, status.Errorf(codes.Internal, "ticket for statement: %v", err)
	}
	return &pb.FlightInfo{
		Schema:           schema,
		FlightDescriptor: desc,
		Endpoint: []*pb.FlightEndpoint{{
			Ticket:   &pb.Ticket{Ticket: ticket},
			Location: []*pb.Location{{Uri: s.location(p.onFE)}},
		}},
		TotalRecords: -1,
		TotalBytes:   -1,
	}, nil
}

func ticketFor(handle string) ([]byte, error) {
	var a anypb.Any
	if err := a.MarshalFrom(&pb.TicketStatementQuery{StatementHandle: []byte(handle)}); err != nil {
		return nil, err
	}
	return proto.Marshal(&a)
}

// handleOf decodes a ticket into its statement handle.
func handleOf(t *pb.Ticket) (string, error) {
	var a anypb.Any
	if err := proto.Unmarshal(t.GetTicket(), &a); err != nil {
		return "", status.Errorf(codes.InvalidArgument, "malformed ticket: %v", err)
	}
	var q pb.TicketStatementQuery
	if err := a.UnmarshalTo(&q); err != nil {
		return "", status.Errorf(codes.InvalidArgument, "malformed ticket %s: %v", a.TypeUrl, err)
	}
	return string(q.StatementHandle), nil
}
