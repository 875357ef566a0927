package sqlengine

import (
	"io"
	"strconv"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// directCount answers a bounded row count straight from storage:
//
//	SELECT COUNT(*) FROM (SELECT 1 FROM <t> LIMIT <n>) <alias>
//
// Doris counts from its columnar segments without materialising rows; through
// go-mysql-server each counted row was converted first, so a client probing
// a hundred tables' sizes paid the simulator's cost, not Doris's. Any other
// shape, and every statement inside a transaction, goes through GMS, which
// gives the same count (TestDirectCountMatchesGMS).
func directCount(s *Session, body string) (*Result, bool, error) {
	ref, limit, ok := parseCountProbe(body)
	if !ok {
		return nil, false, nil
	}
	db, err := qualify(s, ref.db)
	if err != nil {
		return nil, false, nil
	}
	if _, err := s.eng.store.Table(db, ref.table); err != nil {
		return nil, false, nil // GMS reports it the usual way
	}
	rows, err := s.eng.store.Scan(db, ref.table, nil)
	if err != nil {
		return nil, true, err
	}
	defer func() { _ = rows.Close() }()
	var n int64
	for n < limit {
		if _, err := rows.Next(); err == io.EOF {
			break
		} else if err != nil {
			return nil, true, err
		}
		n++
	}
	cols := []ResultColumn{{Name: "COUNT(*)", Type: storage.Type{Kind: storage.BigInt}}}
	return staticResult(cols, [][]any{{n}}), true, nil
}

// parseCountProbe matches the count-probe shape token by token.
func parseCountProbe(body string) (tableRef, int64, bool) {
	toks, err := storage.Lex(body)
	if err != nil {
		return tableRef{}, 0, false
	}
	sig := storage.Significant(toks)
	head := []string{"select", "count", "(", "*", ")", "from", "(", "select", "1", "from"}
	if len(sig) < len(head)+5 {
		return tableRef{}, 0, false
	}
	for i, w := range head {
		if sig[i].Raw != w && !sig[i].IsWord(w) {
			return tableRef{}, 0, false
		}
	}
	ref, ok := parseTableRef(sig, len(head))
	if !ok {
		return tableRef{}, 0, false
	}
	rest := sig[ref.end:]
	if len(rest) > 0 && rest[len(rest)-1].IsPunct(";") {
		rest = rest[:len(rest)-1]
	}
	if len(rest) == 5 && rest[3].IsWord("as") {
		rest = append(rest[:3:3], rest[4])
	}
	if len(rest) != 4 || !rest[0].IsWord("limit") || rest[1].Kind != storage.TokNumber ||
		!rest[2].IsPunct(")") || !isIdentTok(rest[3]) {
		return tableRef{}, 0, false
	}
	limit, err := strconv.ParseInt(rest[1].Raw, 10, 64)
	if err != nil || limit < 0 {
		return tableRef{}, 0, false
	}
	return ref, limit, true
}
