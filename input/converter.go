package input

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/input/rowjson"
)

// Metadata keys, documented in the spec and the README.
const (
	metaOperation   = "operation"
	metaDatabase    = "database"
	metaTable       = "table"
	metaPhase       = "doris_phase"
	metaOp          = "doris_op"
	metaTSO         = "doris_tso"
	metaLSN         = "doris_lsn"
	metaCommitTS    = "commit_ts_ms"
	metaWindowStart = "doris_window_start"
	metaWindowEnd   = "doris_window_end"
)

// opNames maps the @incr op codes 0-3 to the operation metadata value.
var opNames = [4]string{"insert", "delete", "update_before", "update_after"}

// rowConverter turns one table's Arrow batches into messages. It keeps one converter per
// schema and builds message bodies in a shared arena, so the per-row cost is
// one JSON append plus the metadata.
type rowConverter struct {
	db, table string
	key       string // db.table, as in positions
	opts      rowjson.Options
	schema    *arrow.Schema
	conv      *rowjson.Converter
	arena     []byte

	// Messages are shallow copies of templates that hold the metadata:
	// Benthos shares a copied message's metadata until someone writes to it,
	// so a snapshot row costs no metadata work and a binlog row only its
	// three positional keys.
	snapTmpl *service.Message
	binTmpl  [4]*service.Message // per op code, for the window binWin
	binWin   [2]string

	// Every row of a transaction has the same TSO: its boxed metadata
	// values are shared instead of allocated per row.
	boxedTSO           int64
	tsoValue, tsoMsVal any
}

func newRowConverter(t tableName, opts rowjson.Options) *rowConverter {
	rc := &rowConverter{db: t.db, table: t.table, key: t.key, opts: opts}
	rc.snapTmpl = service.NewMessage(nil)
	rc.snapTmpl.MetaSetMut(metaOperation, "read")
	rc.snapTmpl.MetaSetMut(metaDatabase, rc.db)
	rc.snapTmpl.MetaSetMut(metaTable, rc.table)
	rc.snapTmpl.MetaSetMut(metaPhase, checkpoint.PhaseSnapshot)
	return rc
}

func (rc *rowConverter) bind(rec arrow.RecordBatch) error {
	if rc.conv == nil || !rc.schema.Equal(rec.Schema()) {
		conv, err := rowjson.NewConverter(rec.Schema(), rc.opts)
		if err != nil {
			return fmt.Errorf("arrow schema of %s: %w", rc.key, err)
		}
		rc.conv, rc.schema = conv, rec.Schema()
	}
	return rc.conv.Bind(rec)
}

func (rc *rowConverter) body(row int) ([]byte, error) {
	if cap(rc.arena)-len(rc.arena) < 512 {
		rc.arena = make([]byte, 0, 64*1024)
	}
	start := len(rc.arena)
	out, err := rc.conv.AppendRow(rc.arena, row)
	if err != nil {
		return nil, fmt.Errorf("row %d of %s: %w", row, rc.key, err)
	}
	rc.arena = out
	return out[start:len(out):len(out)], nil
}

func (rc *rowConverter) snapshotMessage(row int) (*service.Message, error) {
	b, err := rc.body(row)
	if err != nil {
		return nil, err
	}
	msg := rc.snapTmpl.Copy()
	msg.SetBytes(b)
	return msg, nil
}

// binlogPos reads the (TSO, LSN, OP) of an @incr row.
func (rc *rowConverter) binlogPos(row int) (checkpoint.Pos, error) {
	tso, lsn, op, err := rc.conv.BinlogPos(row)
	if err != nil {
		return checkpoint.Pos{}, fmt.Errorf("binlog row %d of %s: %w", row, rc.key, err)
	}
	return checkpoint.Pos{TSO: tso, Table: rc.key, LSN: lsn, Op: op}, nil
}

// binlogMessage builds the message of the @incr row at pos.
func (rc *rowConverter) binlogMessage(row int, pos checkpoint.Pos, w window) (*service.Message, error) {
	b, err := rc.body(row)
	if err != nil {
		return nil, err
	}
	if pos.Op < 0 || int(pos.Op) >= len(opNames) {
		return nil, fmt.Errorf("binlog row %d of %s: operation %d out of range", row, rc.key, pos.Op)
	}
	msg := rc.binlogTemplate(pos.Op, w).Copy()
	msg.SetBytes(b)
	// The template already holds these keys, so the copied map is allocated
	// at its final size and never grows.
	if pos.TSO != rc.boxedTSO || rc.tsoValue == nil {
		rc.boxedTSO, rc.tsoValue, rc.tsoMsVal = pos.TSO, pos.TSO, pos.TSO>>18
	}
	msg.MetaSetMut(metaTSO, rc.tsoValue)
	msg.MetaSetMut(metaLSN, pos.LSN)
	msg.MetaSetMut(metaCommitTS, rc.tsoMsVal)
	return msg, nil
}

// binlogTemplate holds every binlog metadata key with the values shared by
// the rows of one op code in window w; the positional keys are placeholders.
func (rc *rowConverter) binlogTemplate(op int8, w window) *service.Message {
	if rc.binWin != [2]string{w.start, w.end} {
		rc.binTmpl, rc.binWin = [4]*service.Message{}, [2]string{w.start, w.end}
	}
	if t := rc.binTmpl[op]; t != nil {
		return t
	}
	t := service.NewMessage(nil)
	t.MetaSetMut(metaOperation, opNames[op])
	t.MetaSetMut(metaDatabase, rc.db)
	t.MetaSetMut(metaTable, rc.table)
	t.MetaSetMut(metaPhase, checkpoint.PhaseBinlog)
	t.MetaSetMut(metaOp, int64(op))
	t.MetaSetMut(metaTSO, int64(0))
	t.MetaSetMut(metaLSN, int64(0))
	t.MetaSetMut(metaCommitTS, int64(0))
	t.MetaSetMut(metaWindowStart, w.start)
	t.MetaSetMut(metaWindowEnd, w.end)
	rc.binTmpl[op] = t
	return t
}
