package kafka

import (
	"fmt"
	"strconv"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/input/txmarkers"
)

// opCodes orders the operation values as doris_binlog orders its rows (the
// @incr op codes); a merged "update" stands where its update_after was.
var opCodes = map[string]int8{
	"insert":        0,
	"delete":        1,
	"update_before": 2,
	"update_after":  3,
	"update":        3,
}

// messagePosition is a message's position, nil when it has no tso (a
// snapshot row, a message of another input) or is a table's catch-up row,
// whose position does not order it against the partition's other records.
// A transaction marker's position is its TSO alone, with its kind
// (markers.go).
func messagePosition(msg *service.Message) (*checkpoint.Pos, txmarkers.Kind, error) {
	if v, _ := msg.MetaGet(metaPhase); v == phaseCatchUp {
		return nil, txmarkers.None, nil
	}
	get := func(k string) (string, bool) { return msg.MetaGet(k) }
	return parsePosition(get, "message")
}

// headerPosition is a record's position from its headers.
func headerPosition(headers map[string]string, where string) (*checkpoint.Pos, txmarkers.Kind, error) {
	get := func(k string) (string, bool) { v, ok := headers[k]; return v, ok }
	return parsePosition(get, where)
}

func parsePosition(get func(string) (string, bool), where string) (*checkpoint.Pos, txmarkers.Kind, error) {
	tso, ok := get(metaTSO)
	if !ok {
		return nil, txmarkers.None, nil
	}
	p := &checkpoint.Pos{}
	var err error
	if p.TSO, err = strconv.ParseInt(tso, 10, 64); err != nil || p.TSO <= 0 {
		return nil, txmarkers.None, fmt.Errorf("%s: tso must be a positive integer; got %q", where, tso)
	}
	op, _ := get(metaOperation)
	if mark := txmarkers.KindOfOperation(op); mark != txmarkers.None {
		return p, mark, nil // a transaction has no table or LSN of its own
	}
	p, err = changePosition(get, where, p)
	return p, txmarkers.None, err
}

// changePosition completes the position of a change whose TSO p holds.
func changePosition(get func(string) (string, bool), where string, p *checkpoint.Pos) (*checkpoint.Pos, error) {
	var err error
	db, okDB := get(metaDatabase)
	table, okTable := get(metaTable)
	if !okDB || !okTable || db == "" || table == "" {
		return nil, fmt.Errorf("%s: has a tso but no database_schema and table", where)
	}
	// The input orders a transaction's tables by this identity (and keeps
	// it in checkpoints): comparing anything else would put two tables of
	// one TSO in another order than they were written, and "a.b"+"c"
	// would be "a"+"b.c".
	p.Table = doris.FormatTableIdentifier(db, table)
	lsn, ok := get(metaLSN)
	if !ok {
		return nil, fmt.Errorf("%s: has a tso but no lsn", where)
	}
	if p.LSN, err = strconv.ParseInt(lsn, 10, 64); err != nil || p.LSN < 0 {
		return nil, fmt.Errorf("%s: lsn must be a non-negative integer; got %q", where, lsn)
	}
	op, _ := get(metaOperation)
	code, ok := opCodes[op]
	if !ok {
		return nil, fmt.Errorf("%s: operation of a change must be one of insert, delete, update_before, update_after, update; got %q", where, op)
	}
	p.Op = code
	return p, nil
}
