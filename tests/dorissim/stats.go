package dorissim

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"sync"

	pb "github.com/apache/arrow-go/v18/arrow/flight/gen/flight"
	"google.golang.org/grpc"
)

// Stats counts the requests the simulator received since Start, so that a
// benchmark can tell what a client costs the FE (an idle table's polls, a
// discovery) without instrumenting the client. Requests are counted as they
// arrive, whatever their outcome (a 401 or a failed query counts).
// GET /api/_sim/stats serves it; the /api/_sim/ endpoints themselves are not
// counted.
type Stats struct {
	// HTTP is keyed by route pattern, such as "GET /api/tso"; "unmatched" for
	// a path no route serves. The port also takes the BE side of stream
	// loads ("PUT /api/_be/{db}/{table}/_stream_load").
	HTTP map[string]int64 `json:"http"`
	// FEFlight and BEFlight are keyed by Flight RPC (Handshake,
	// GetFlightInfo, DoGet, ...).
	FEFlight map[string]int64 `json:"fe_flight"`
	BEFlight map[string]int64 `json:"be_flight"`
	// FEIncrQueries is the part of FEFlight's GetFlightInfo calls whose
	// statement reads an `@incr` table function: a binlog window query of
	// one table, which the FE plans and runs on the call (the other calls
	// are snapshot splits and session statements).
	FEIncrQueries int64 `json:"fe_incr_queries"`
	// MySQLConnections counts accepted MySQL-protocol connections (the
	// statements on them are not counted).
	MySQLConnections int64 `json:"mysql_connections"`
	// MySQLStatements counts the statements run on those connections
	// (COM_QUERY and COM_STMT_EXECUTE): FE work that FERequests leaves out.
	MySQLStatements int64 `json:"mysql_statements"`
	// SessionsOpen is what the FE's connection pool holds now: MySQL
	// connections past authentication and Arrow Flight SQL sessions, the
	// count qe_max_connection and max_user_connections bound.
	// SessionsPeak is the most it held at once since Start.
	SessionsOpen int64 `json:"sessions_open"`
	SessionsPeak int64 `json:"sessions_peak"`
	// FlightSessionsOpen and FlightSessionsPeak are the Flight sessions
	// among them, the count arrow_flight_max_connections bounds.
	FlightSessionsOpen int64 `json:"flight_sessions_open"`
	FlightSessionsPeak int64 `json:"flight_sessions_peak"`
	// SessionsRefused counts connections and sessions refused by a limit.
	SessionsRefused int64 `json:"sessions_refused"`
}

// FERequests is the number of requests the FE received: its HTTP API calls
// (stream loads excluded: those go to the BE after the FE's redirect) and
// its Flight RPCs.
func (s Stats) FERequests() int64 {
	var n int64
	for k, v := range s.HTTP {
		if !strings.Contains(k, " /api/_be/") {
			n += v
		}
	}
	for _, v := range s.FEFlight {
		n += v
	}
	return n
}

type requestStats struct {
	mu       sync.Mutex
	http     map[string]int64
	feFlight map[string]int64
	beFlight map[string]int64
	mysql    int64
	mysqlSQL int64
	feIncr   int64
}

func newRequestStats() *requestStats {
	return &requestStats{http: map[string]int64{}, feFlight: map[string]int64{}, beFlight: map[string]int64{}}
}

func (r *requestStats) add(m map[string]int64, key string) {
	r.mu.Lock()
	m[key]++
	r.mu.Unlock()
}

func (r *requestStats) addMySQL() {
	r.mu.Lock()
	r.mysql++
	r.mu.Unlock()
}

func (r *requestStats) addMySQLStatement() {
	r.mu.Lock()
	r.mysqlSQL++
	r.mu.Unlock()
}

func (r *requestStats) snapshot() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return Stats{HTTP: copyCounts(r.http), FEFlight: copyCounts(r.feFlight), BEFlight: copyCounts(r.beFlight),
		MySQLConnections: r.mysql, MySQLStatements: r.mysqlSQL, FEIncrQueries: r.feIncr}
}

func copyCounts(m map[string]int64) map[string]int64 {
	out := make(map[string]int64, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// countHTTP counts each request under the route the mux inside h chose: the
// mux records its pattern on the request it was given.
func (r *requestStats) countHTTP(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		h.ServeHTTP(w, req)
		key := req.Pattern
		switch {
		case key == "":
			key = "unmatched"
		case strings.Contains(key, " /api/_sim/"):
			return
		}
		r.add(r.http, key)
	})
}

// grpcOptions count every RPC of one Flight server before authentication.
func (r *requestStats) grpcOptions(m map[string]int64) []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.ChainUnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			name := rpcName(info.FullMethod)
			r.add(m, name)
			if d, ok := req.(*pb.FlightDescriptor); ok && name == "GetFlightInfo" && isIncrStatement(d) {
				r.mu.Lock()
				r.feIncr++
				r.mu.Unlock()
			}
			return h(ctx, req)
		}),
		grpc.ChainStreamInterceptor(func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
			r.add(m, rpcName(info.FullMethod))
			return h(srv, ss)
		}),
	}
}

// isIncrStatement tells a GetFlightInfo of an `@incr` query by its
// command's bytes, without decoding them: the statement text sits verbatim
// in the serialized CommandStatementQuery. A malformed command is the
// handler's to reject; here it only goes uncounted.
func isIncrStatement(d *pb.FlightDescriptor) bool {
	return d.GetType() == pb.FlightDescriptor_CMD && bytes.Contains(bytes.ToLower(d.GetCmd()), []byte("@incr"))
}

// rpcName is the method of "/arrow.flight.protocol.FlightService/DoGet".
func rpcName(full string) string { return full[strings.LastIndexByte(full, '/')+1:] }

// Stats returns the requests counted since Start and the connection
// pool's counts.
func (s *Server) Stats() Stats {
	st := s.stats.snapshot()
	p := s.pool.Stats()
	st.SessionsOpen, st.SessionsPeak = int64(p.Open), int64(p.Peak)
	st.FlightSessionsOpen, st.FlightSessionsPeak = int64(p.FlightOpen), int64(p.FlightPeak)
	st.SessionsRefused = p.Refused
	return st
}
