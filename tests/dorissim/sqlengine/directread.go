package sqlengine

import (
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// directRead answers the two reads that Doris's Flight clients send, a
// snapshot split and an @incr window, straight from storage:
//
//	SELECT <cols> FROM <t>  [FOR VERSION AS OF <tso>] [TABLET(<ids>)]
//	SELECT <cols>, __DORIS_BINLOG_TSO__, ... FROM <t>@incr(...) [ORDER BY TSO, LSN, OP]
//
// Doris serves these from columnar storage; running them row by row through
// go-mysql-server made the simulator's Flight path as slow as its MySQL
// path, which misrepresents Doris. Only a plain column list is taken here;
// any expression, alias, WHERE, LIMIT or open transaction goes through GMS,
// which gives the same rows. handled is false when the shape does not match.
func directRead(s *Session, gctx *sql.Context, body string) (*Result, bool, error) {
	if tx, ok := s.gs.GetTransaction().(*txn); ok && tx != nil && tx.st != nil {
		return nil, false, nil
	}
	q, ok := parseDirectRead(body)
	if !ok {
		return directCount(s, body)
	}
	db, err := qualify(s, q.db)
	if err != nil {
		return nil, false, nil
	}
	if q.incr {
		return directIncr(s, gctx, db, q)
	}
	if q.asOf != "" && !s.eng.PreTimeTravelFE() {
		return directAsOf(s, db, q)
	}
	return directTablets(s, db, q)
}

// directQuery is a parsed direct-read statement.
type directQuery struct {
	cols      []string // "*" or column names, in output order
	db, table string
	incr      bool
	all       bool     // no TABLET clause: every tablet
	args      []string // TABLET ids, or @incr key/value pairs
	asOf      string   // the FOR VERSION AS OF literal, "" when none
}

func parseDirectRead(body string) (directQuery, bool) {
	toks, err := storage.Lex(body)
	if err != nil {
		return directQuery{}, false
	}
	sig := storage.Significant(toks)
	if len(sig) < 4 || !sig[0].IsWord("select") {
		return directQuery{}, false
	}
	var q directQuery
	i := 1
	for {
		if i >= len(sig) {
			return directQuery{}, false
		}
		switch t := sig[i]; {
		case t.IsPunct("*"):
			q.cols = append(q.cols, "*")
		case isIdentTok(t) && !t.IsWord("distinct") && !t.IsWord("from"):
			q.cols = append(q.cols, t.Ident())
		default:
			return directQuery{}, false
		}
		i++
		if i < len(sig) && sig[i].IsWord("from") {
			break
		}
		if i >= len(sig) || !sig[i].IsPunct(",") {
			return directQuery{}, false
		}
		i++
	}
	ref, ok := parseTableRef(sig, i+1)
	if !ok {
		return directQuery{}, false
	}
	q.db, q.table = ref.db, ref.table
	return q.clause(sig, ref.end)
}

// clause reads TABLET(...) or @incr(...) and checks nothing but an ORDER BY
// of the binlog position follows.
func (q directQuery) clause(sig []storage.Token, j int) (directQuery, bool) {
	var next int
	var err error
	if j+4 < len(sig) && sig[j].IsWord("for") && sig[j+1].IsWord("version") && sig[j+2].IsWord("as") &&
		sig[j+3].IsWord("of") && sig[j+4].Kind == storage.TokNumber && !strings.ContainsAny(sig[j+4].Raw, ".eE") {
		q.asOf = sig[j+4].Raw
		j += 5
		if j < len(sig) && !sig[j].IsWord("tablet") {
			return q, false
		}
	}
	switch {
	case j+2 < len(sig) && sig[j].IsPunct("@") && sig[j+1].IsWord("incr") && sig[j+2].IsPunct("("):
		q.incr = true
		q.args, next, err = incrArgs(sig, j+3)
	case j+1 < len(sig) && sig[j].IsWord("tablet") && sig[j+1].IsPunct("("):
		q.args, next, err = tabletArgs(sig, j+2)
	case j == len(sig):
		q.all = true
		return q, true
	default:
		return q, false
	}
	if err != nil {
		return q, false
	}
	if next == len(sig) {
		return q, true
	}
	return q, q.incr && positionOrder(sig[next:])
}

// positionOrder matches ORDER BY __DORIS_BINLOG_TSO__, __DORIS_BINLOG_LSN__,
// __DORIS_BINLOG_OP__, the order storage returns @incr rows in.
func positionOrder(sig []storage.Token) bool {
	want := []string{"order", "by", storage.ColBinlogTSO, ",", storage.ColBinlogLSN, ",", storage.ColBinlogOp}
	if len(sig) != len(want) {
		return false
	}
	for i, w := range want {
		if !strings.EqualFold(sig[i].Ident(), w) {
			return false
		}
	}
	return true
}

func directTablets(s *Session, db string, q directQuery) (*Result, bool, error) {
	info, err := s.eng.store.Table(db, q.table)
	if err != nil {
		return nil, false, nil // GMS reports it the usual way
	}
	var ids []int64 // nil: every tablet
	if !q.all {
		ids = make([]int64, len(q.args))
	}
	for i, a := range q.args {
		if ids[i], err = strconv.ParseInt(a, 10, 64); err != nil {
			return nil, false, nil
		}
	}
	src, visible, withTSO := directColumns(s, db, info, q)
	cols, proj, ok := project(src, visible, q.cols)
	if !ok {
		return nil, false, nil
	}
	scan := s.eng.store.Scan
	if withTSO {
		scan = s.eng.store.ScanWithCommitTSO
	}
	rows, err := scan(db, q.table, ids)
	if err != nil {
		return nil, true, err
	}
	return &Result{Columns: cols, rows: rows, proj: proj}, true, nil
}

// directColumns is the source columns of a direct table read and how many
// of them `*` covers: the table's own, then the hidden commit-TSO column
// when the table has it and the statement names it or shows hidden
// columns (hiddencol.go).
func directColumns(s *Session, db string, info *storage.TableInfo, q directQuery) ([]storage.Column, int, bool) {
	own := info.Def.Columns
	if s.eng.PreTimeTravelFE() || !s.eng.hasCommitTSO(db, q.table) {
		return own, len(own), false
	}
	show := s.gs.showHiddenColumns()
	named := false
	for _, c := range q.cols {
		named = named || strings.EqualFold(c, storage.ColCommitTSO)
	}
	if !show && !named {
		return own, len(own), false
	}
	all := withCommitTSO(own)
	if show {
		return all, len(all), true
	}
	return all, len(own), true
}

// directAsOf reads a split FOR VERSION AS OF a TSO straight from storage,
// as asofFunc does through go-mysql-server.
func directAsOf(s *Session, db string, q directQuery) (*Result, bool, error) {
	info, err := s.eng.store.Table(db, q.table)
	if err != nil {
		return nil, false, nil
	}
	tso, err := strconv.ParseInt(q.asOf, 10, 64)
	if err != nil {
		return nil, false, nil // GMS reports the bad literal
	}
	var ids []int64
	for _, a := range q.args {
		id, err := strconv.ParseInt(a, 10, 64)
		if err != nil {
			return nil, false, nil
		}
		ids = append(ids, id)
	}
	if err := checkTablets(info, ids); err != nil {
		return nil, true, err
	}
	src, visible, withTSO := directColumns(s, db, info, q)
	cols, proj, ok := project(src, visible, q.cols)
	if !ok {
		return nil, false, nil
	}
	scan := s.eng.store.ScanAsOf
	if withTSO {
		scan = s.eng.store.ScanAsOfWithCommitTSO
	}
	rows, err := scan(db, q.table, ids, tso)
	if err != nil {
		return nil, true, err
	}
	return &Result{Columns: cols, rows: rows, proj: proj}, true, nil
}

func directIncr(s *Session, gctx *sql.Context, db string, q directQuery) (*Result, bool, error) {
	info, err := s.eng.store.Table(db, q.table)
	if err != nil {
		return nil, false, nil
	}
	loc, err := sessionLocation(gctx)
	if err != nil {
		return nil, true, err
	}
	params := make(map[string]string, len(q.args)/2)
	for i := 0; i+1 < len(q.args); i += 2 {
		params[q.args[i]] = q.args[i+1]
	}
	all, rows, err := s.eng.store.Incr(gctx, db, q.table, storage.IncrParams{Params: params, Location: loc, MemLimit: sessionMemLimit(gctx)})
	if err != nil {
		return nil, true, err
	}
	cols, proj, ok := project(all, len(info.Def.Columns), q.cols)
	if !ok {
		_ = rows.Close()
		return nil, false, nil
	}
	return &Result{Columns: cols, rows: rows, proj: proj}, true, nil
}

// project maps the select list onto source columns; "*" means the first
// visible columns (an @incr's binlog columns are hidden from it). proj is nil
// when the result is the source row unchanged.
func project(src []storage.Column, visible int, list []string) ([]ResultColumn, []int, bool) {
	var cols []ResultColumn
	var proj []int
	for _, name := range list {
		if name == "*" {
			for i := 0; i < visible; i++ {
				proj = append(proj, i)
			}
			continue
		}
		idx := -1
		for i, c := range src {
			if strings.EqualFold(c.Name, name) {
				idx = i
				break
			}
		}
		if idx < 0 {
			return nil, nil, false
		}
		proj = append(proj, idx)
	}
	identity := len(proj) == len(src)
	for i, p := range proj {
		c := src[p]
		cols = append(cols, ResultColumn{Name: c.Name, Type: c.Type, Nullable: c.Nullable})
		identity = identity && p == i
	}
	if identity {
		proj = nil
	}
	return cols, proj, true
}
