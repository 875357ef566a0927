package dorissim

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/go-sql-driver/mysql"
	"github.com/shopspring/decimal"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// fakeClock is a settable simulator clock, so commits land at the times of
// the documented examples.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock(t time.Time) *fakeClock { return &fakeClock{now: t} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// mustExecAll runs statements as root through the simulator's engine.
func mustExecAll(t *testing.T, s *Server, stmts ...string) {
	t.Helper()
	for _, stmt := range stmts {
		if err := s.Exec(testCtx(t), stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
}

// mysqlConn opens a dedicated MySQL connection with the session time_zone
// set to UTC, the zone every acceptance test writes its timestamps in.
func mysqlConn(t *testing.T, s *Server) *sql.Conn {
	t.Helper()
	db, err := sql.Open("mysql", "root:pw@tcp("+s.MySQLAddr()+")/")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	conn, err := db.Conn(testCtx(t))
	if err != nil {
		t.Fatalf("mysql connect: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := conn.ExecContext(testCtx(t), "SET time_zone = 'UTC'"); err != nil {
		t.Fatalf("mysql set time_zone: %v", err)
	}
	return conn
}

// mysqlColumns runs a query over the MySQL protocol and returns its column
// names, comma separated.
func mysqlColumns(t *testing.T, conn *sql.Conn, q string) string {
	t.Helper()
	rows, err := conn.QueryContext(testCtx(t), q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(cols, ",")
}

// mysqlText runs a query over the MySQL protocol and returns every value as
// its wire text ("NULL" for NULL).
func mysqlText(ctx context.Context, conn *sql.Conn, q string) ([][]string, error) {
	rows, err := conn.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out [][]string
	for rows.Next() {
		raw := make([]sql.RawBytes, len(cols))
		dst := make([]any, len(cols))
		for i := range raw {
			dst[i] = &raw[i]
		}
		if err := rows.Scan(dst...); err != nil {
			return nil, err
		}
		row := make([]string, len(cols))
		for i, b := range raw {
			row[i] = "NULL"
			if b != nil {
				row[i] = string(b)
			}
		}
		out = append(out, row)
	}
	return out, rows.Err()
}

// flightSession is one Flight SQL login on the FE plus a BE client for the
// endpoints, as a Doris client holds them.
type flightSession struct {
	fe  *flightsql.Client
	ctx context.Context
	be  map[string]*flightsql.Client
}

func newFlightSession(t *testing.T, s *Server) *flightSession {
	t.Helper()
	c, ctx := flightLogin(t, s.FlightAddr(), nil)
	fs := &flightSession{fe: c, ctx: ctx, be: map[string]*flightsql.Client{}}
	t.Cleanup(func() {
		for _, be := range fs.be {
			be.Close()
		}
	})
	return fs
}

// exec runs a statement whose result does not matter (SET, DML), draining
// its endpoints so the session sees its effect.
func (fs *flightSession) exec(q string, opts ...grpc.CallOption) error {
	return fs.query(q, func(arrow.RecordBatch) error { return nil }, opts...)
}

// query executes q on the FE and reads every endpoint at its location.
func (fs *flightSession) query(q string, fn func(arrow.RecordBatch) error, opts ...grpc.CallOption) error {
	info, err := fs.fe.Execute(fs.ctx, q, opts...)
	if err != nil {
		return err
	}
	for _, ep := range info.Endpoint {
		c := fs.fe
		if len(ep.Location) > 0 {
			uri := ep.Location[0].Uri
			if c, err = fs.client(uri[strings.Index(uri, "://")+3:]); err != nil {
				return err
			}
		}
		if err := fs.readTicket(c, ep.Ticket, fn); err != nil {
			return err
		}
	}
	return nil
}

func (fs *flightSession) client(addr string) (*flightsql.Client, error) {
	if c, ok := fs.be[addr]; ok {
		return c, nil
	}
	c, err := flightsql.NewClient(addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, fmt.Errorf("dial endpoint %s: %w", addr, err)
	}
	fs.be[addr] = c
	return c, nil
}

func (fs *flightSession) readTicket(c *flightsql.Client, tkt *flight.Ticket, fn func(arrow.RecordBatch) error) error {
	r, err := c.DoGet(fs.ctx, tkt)
	if err != nil {
		return err
	}
	defer r.Release()
	for r.Next() {
		if err := fn(r.RecordBatch()); err != nil {
			return err
		}
	}
	return r.Err()
}

// text runs q and renders every cell as text the way the MySQL protocol
// shows it, so both protocols compare against the same documented rows.
func (fs *flightSession) text(q string) ([][]string, error) {
	var out [][]string
	err := fs.query(q, func(rec arrow.RecordBatch) error {
		for r := 0; r < int(rec.NumRows()); r++ {
			row := make([]string, rec.NumCols())
			for c := range row {
				row[c] = cellText(rec.Column(c), r)
			}
			out = append(out, row)
		}
		return nil
	})
	return out, err
}

func cellText(col arrow.Array, i int) string {
	if col.IsNull(i) {
		return "NULL"
	}
	switch a := col.(type) {
	case *array.Decimal128:
		scale := a.DataType().(*arrow.Decimal128Type).Scale
		return decimal.NewFromBigInt(a.Value(i).BigInt(), -scale).StringFixed(scale)
	case *array.Int64:
		return strconv.FormatInt(a.Value(i), 10)
	case *array.Int8:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	default:
		return col.ValueStr(i)
	}
}

// wantDorisError checks the Doris text of an ordinary failure over both
// protocols: MySQL `errCode = 2, detailMessage = <msg>`, Flight INTERNAL
// carrying the text.
func wantDorisError(t *testing.T, conn *sql.Conn, fs *flightSession, q, msg string) {
	t.Helper()
	_, err := mysqlText(testCtx(t), conn, q)
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Message != "errCode = 2, detailMessage = "+msg {
		t.Errorf("mysql %s:\n got %v\nwant errCode = 2, detailMessage = %s", q, err, msg)
	}
	err = fs.exec(q)
	if status.Code(err) != codes.Internal || !strings.Contains(status.Convert(err).Message(), msg) {
		t.Errorf("flight %s:\n got %v\nwant INTERNAL with %q", q, err, msg)
	}
}

// wantWindowError checks a 5100/5101 window error over both protocols:
// MySQL error code, Flight UNAVAILABLE with doris-error-* trailers.
func wantWindowError(t *testing.T, conn *sql.Conn, fs *flightSession, q string, code int, name, reason string) {
	t.Helper()
	_, err := mysqlText(testCtx(t), conn, q)
	var me *mysql.MySQLError
	if !errors.As(err, &me) || int(me.Number) != code || !strings.HasPrefix(me.Message, name+": reason="+reason) {
		t.Errorf("mysql %s: got %v, want %d %s reason=%s", q, err, code, name, reason)
	}
	var trl metadata.MD
	err = fs.exec(q, grpc.Trailer(&trl))
	if status.Code(err) != codes.Unavailable || first(trl, "doris-error-code") != strconv.Itoa(code) ||
		first(trl, "doris-error-name") != name || !strings.Contains(err.Error(), "reason="+reason) {
		t.Errorf("flight %s: got %v trailers %v, want UNAVAILABLE %d %s reason=%s", q, err, trl, code, name, reason)
	}
}

func first(md metadata.MD, key string) string {
	if v := md.Get(key); len(v) > 0 {
		return v[0]
	}
	return ""
}

func equalRows(a, b [][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if strings.Join(a[i], "\x00") != strings.Join(b[i], "\x00") {
			return false
		}
	}
	return true
}
