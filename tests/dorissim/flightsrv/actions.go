package flightsrv

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/flight"
	pb "github.com/apache/arrow-go/v18/arrow/flight/gen/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// DoAction serves CloseSession, the one action the simulator implements:
// it ends the caller's session, its token with it, and gives its slot in
// the connection pool back (FlightSessionsInConnectPool.closeConnectContext).
// Other actions answer UNIMPLEMENTED.
func (f *feServer) DoAction(a *pb.Action, stream pb.FlightService_DoActionServer) error {
	if a.GetType() != flight.CloseSessionActionType {
		return status.Errorf(codes.Unimplemented, "action %q is not supported", a.GetType())
	}
	// The request carries no field Doris reads; a malformed one is still
	// the client's error.
	var req pb.CloseSessionRequest
	if err := proto.Unmarshal(a.GetBody(), &req); err != nil {
		return status.Errorf(codes.InvalidArgument, "malformed CloseSessionRequest: %v", err)
	}
	e := entryFrom(stream.Context())
	if e == nil {
		return status.Error(codes.Unauthenticated, "no authorization header")
	}
	f.svc.tokens.end(e.token)
	body, err := proto.Marshal(&pb.CloseSessionResult{Status: pb.CloseSessionResult_CLOSED})
	if err != nil {
		return status.Errorf(codes.Internal, "close session result: %v", err)
	}
	if err := stream.Send(&pb.Result{Body: body}); err != nil {
		return fmt.Errorf("close session result: %w", err)
	}
	return nil
}
