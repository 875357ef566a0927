package sqlengine

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// rowsPerPacketBatch bounds how many rows are handed to vitess at once.
const rowsPerPacketBatch = 256

// handler is the MySQL protocol handler: one simulator Session per
// connection, every statement through Session.Query.
type handler struct{ eng *Engine }

var _ mysql.Handler = (*handler)(nil)

func (h *handler) session(c *mysql.Conn) *Session {
	h.eng.mu.Lock()
	defer h.eng.mu.Unlock()
	s, ok := h.eng.sessions[c.ConnectionID]
	if !ok {
		addr := ""
		if ra := c.RemoteAddr(); ra != nil {
			addr = ra.String()
		}
		s = h.eng.newSession(c.User, addr, c.ConnectionID)
		h.eng.sessions[c.ConnectionID] = s
	}
	return s
}

func (h *handler) NewConnection(*mysql.Conn) {}

// ConnectionClosed ends the connection's session and gives its slot in the
// connection pool back.
func (h *handler) ConnectionClosed(c *mysql.Conn) {
	h.closeSession(c)
	if pc := poolConn(c); pc != nil {
		pc.Release()
	}
}

func (h *handler) closeSession(c *mysql.Conn) {
	h.eng.mu.Lock()
	s, ok := h.eng.sessions[c.ConnectionID]
	delete(h.eng.sessions, c.ConnectionID)
	h.eng.mu.Unlock()
	if ok {
		s.Close()
	}
}

func (h *handler) ConnectionAborted(*mysql.Conn, string) error { return nil }

func (h *handler) ComInitDB(c *mysql.Conn, schemaName string) error {
	defer busy(c)()
	res, err := h.session(c).Query(context.Background(), "USE "+storage.QuoteIdent(schemaName))
	if err != nil {
		return wireError(err)
	}
	return res.Close()
}

func (h *handler) ComQuery(ctx context.Context, c *mysql.Conn, query string, cb mysql.ResultSpoolFn) error {
	return h.run(ctx, c, query, func(r *sqltypes.Result) error { return cb(r, false) })
}

// ComMultiQuery runs the first statement and hands back the rest.
func (h *handler) ComMultiQuery(ctx context.Context, c *mysql.Conn, query string, cb mysql.ResultSpoolFn) (string, error) {
	first, rest, err := splitFirstStatement(query)
	if err != nil {
		return "", wireError(errSyntax("%v", err))
	}
	more := strings.TrimSpace(rest) != ""
	return rest, h.run(ctx, c, first, func(r *sqltypes.Result) error { return cb(r, more) })
}

// ComPrepare accepts the statement; vitess has already counted its
// parameters. Result metadata is sent at execution.
func (h *handler) ComPrepare(context.Context, *mysql.Conn, string, *mysql.PrepareData) ([]*querypb.Field, error) {
	return nil, nil
}

// ComStmtExecute substitutes the bound values as literals and runs the
// statement like any other query.
func (h *handler) ComStmtExecute(ctx context.Context, c *mysql.Conn, prepare *mysql.PrepareData, cb func(*sqltypes.Result) error) error {
	query, err := bindParams(prepare.PrepareStmt, prepare.BindVars)
	if err != nil {
		return wireError(err)
	}
	return h.run(ctx, c, query, cb)
}

func (h *handler) WarningCount(*mysql.Conn) uint16 { return 0 }

// ComResetConnection starts a new session on the same connection, which
// keeps its slot.
func (h *handler) ComResetConnection(c *mysql.Conn) error {
	h.closeSession(c)
	return nil
}

func (h *handler) ParserOptionsForConnection(*mysql.Conn) (sqlparser.ParserOptions, error) {
	return sqlparser.ParserOptions{}, nil
}

// run executes one statement and streams its result in batches.
func (h *handler) run(ctx context.Context, c *mysql.Conn, query string, send func(*sqltypes.Result) error) error {
	defer busy(c)()
	if count := h.eng.cfg.OnMySQLStatement; count != nil {
		count()
	}
	res, err := h.session(c).Query(ctx, query)
	if err != nil {
		return wireError(err)
	}
	defer res.Close()
	if len(res.Columns) == 0 {
		return send(&sqltypes.Result{RowsAffected: uint64(res.AffectedRows)})
	}
	fields := wireFields(res.Columns)
	batch := &sqltypes.Result{Fields: fields}
	var arena []byte
	for {
		row, err := res.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return wireError(err)
		}
		var vals []sqltypes.Value
		vals, arena = wireRow(res.Columns, fields, row, arena)
		batch.Rows = append(batch.Rows, vals)
		if len(batch.Rows) >= rowsPerPacketBatch {
			if err := send(batch); err != nil {
				return err
			}
			batch, arena = &sqltypes.Result{}, nil
		}
	}
	if err := res.Close(); err != nil {
		return wireError(err)
	}
	if len(batch.Rows) > 0 || batch.Fields != nil {
		return send(batch)
	}
	return nil
}

// wireError renders an error the way Doris reports it over MySQL: window
// errors keep their own code and text, everything else is
// `errCode = 2, detailMessage = <msg>`.
func wireError(err error) error {
	se := asStorageError(err)
	if se.Code == storage.CodeWindowNotReady || se.Code == storage.CodeVisibleWaitTmout {
		return mysql.NewSQLError(se.Code, mysql.SSUnknownSQLState, "%s", se.Message)
	}
	return mysql.NewSQLError(se.Code, mysql.SSUnknownSQLState, "errCode = 2, detailMessage = %s", se.Message)
}

func wireFields(cols []ResultColumn) []*querypb.Field {
	fields := make([]*querypb.Field, len(cols))
	for i, c := range cols {
		typ, charset := wireType(c.Type)
		f := &querypb.Field{Name: c.Name, Type: typ, Charset: charset, ColumnLength: 255}
		if c.Type.Kind == storage.Decimal || c.Type.Kind == storage.DateTime {
			f.Decimals = uint32(c.Type.Scale)
		}
		if !c.Nullable {
			f.Flags = uint32(querypb.MySqlFlag_NOT_NULL_FLAG)
		}
		fields[i] = f
	}
	return fields
}

func wireType(t storage.Type) (querypb.Type, uint32) {
	const binary, utf8 = 63, 33
	switch t.Kind {
	case storage.Boolean, storage.TinyInt:
		return sqltypes.Int8, binary
	case storage.SmallInt:
		return sqltypes.Int16, binary
	case storage.Int:
		return sqltypes.Int32, binary
	case storage.BigInt:
		return sqltypes.Int64, binary
	case storage.LargeInt, storage.Decimal:
		return sqltypes.Decimal, binary
	case storage.Float:
		return sqltypes.Float32, binary
	case storage.Double:
		return sqltypes.Float64, binary
	case storage.Date:
		return sqltypes.Date, binary
	case storage.DateTime:
		return sqltypes.Datetime, binary
	case storage.Char:
		return sqltypes.Char, utf8
	default:
		return sqltypes.VarChar, utf8
	}
}

// wireRow renders a row as text values, carving them out of one growing
// byte arena to avoid an allocation per value.
func wireRow(cols []ResultColumn, fields []*querypb.Field, row []any, arena []byte) ([]sqltypes.Value, []byte) {
	vals := make([]sqltypes.Value, len(row))
	for i, v := range row {
		if v == nil || i >= len(cols) {
			vals[i] = sqltypes.NULL
			continue
		}
		start := len(arena)
		arena = appendText(arena, cols[i].Type, v)
		vals[i] = sqltypes.MakeTrusted(fields[i].Type, arena[start:len(arena):len(arena)])
	}
	return vals, arena
}

func appendText(dst []byte, t storage.Type, v any) []byte {
	switch x := v.(type) {
	case int64:
		return strconv.AppendInt(dst, x, 10)
	case int32:
		return strconv.AppendInt(dst, int64(x), 10)
	case string:
		return append(dst, x...)
	}
	return append(dst, storage.FormatValue(t, v)...)
}

// splitFirstStatement cuts a multi-statement string at the first top-level
// semicolon.
func splitFirstStatement(q string) (string, string, error) {
	toks, err := storage.Lex(q)
	if err != nil {
		return "", "", err
	}
	for _, t := range toks {
		if t.IsPunct(";") {
			return q[:t.Start], q[t.End:], nil
		}
	}
	return q, "", nil
}

// bindParams replaces each `?` placeholder outside quotes with its bound
// value as a SQL literal.
func bindParams(query string, binds map[string]*querypb.BindVariable) (string, error) {
	toks, err := storage.Lex(query)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	n := 0
	for _, t := range toks {
		if !t.IsPunct("?") {
			b.WriteString(t.Raw)
			continue
		}
		n++
		bv, ok := binds["v"+strconv.Itoa(n)]
		if !ok {
			return "", fmt.Errorf("missing value for parameter %d", n)
		}
		lit, err := bindLiteral(bv)
		if err != nil {
			return "", fmt.Errorf("parameter %d: %w", n, err)
		}
		b.WriteString(lit)
	}
	return b.String(), nil
}

func bindLiteral(bv *querypb.BindVariable) (string, error) {
	v, err := sqltypes.NewValue(bv.Type, bv.Value)
	if err != nil {
		return "", err
	}
	switch {
	case v.IsNull():
		return "NULL", nil
	case v.IsIntegral(), v.IsFloat(), v.Type() == sqltypes.Decimal:
		return v.ToString(), nil
	default:
		return storage.QuoteString(v.ToString()), nil
	}
}
