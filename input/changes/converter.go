package changes

import (
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/input/rowjson"
	"github.com/rpconnect-doris/rpconnect-doris/input/schemameta"
)

// Metadata keys, the Redpanda Connect CDC names, documented in the spec and
// the README. `schema` and `key_columns` come from package schemameta.
const (
	metaOperation     = "operation"
	metaDatabase      = "database_schema"
	metaTable         = "table"
	metaTSO           = "tso"
	metaLSN           = "lsn"
	metaCommitTS      = "commit_ts_ms"
	metaSourceTS      = "source_ts_ms"
	metaTransactionID = "transaction_id"

	// Only on the binlog rows of a table catching up before it joins the
	// shared windows: they may be older than rows already delivered of other
	// tables, which an order-based consumer (kafka_franz exactly_once) must
	// know.
	metaPhase    = "doris_phase"
	PhaseCatchUp = "catchup"

	// With debug_metadata only: the window a row was read in.
	metaWindowStart = "doris_window_start"
	metaWindowEnd   = "doris_window_end"
)

// opNames maps the @incr op codes 0-3 to the operation metadata value.
var opNames = [4]string{"insert", "delete", "update_before", "update_after"}

// Table names the table whose rows a Converter turns into messages.
type Table struct {
	DB, Name string
	Key      string // db.table as positions and metrics name it
}

// Window is the text of a binlog window's bounds, as the debug metadata
// and the log lines show them.
type Window struct{ Start, End string }

// Converter turns one table's Arrow batches into messages. It keeps one converter per
// schema and builds message bodies in a shared arena, so the per-row cost is
// one JSON append plus the metadata.
type Converter struct {
	db, table string
	key       string // db.table, as in positions
	opts      rowjson.Options
	schema    *arrow.Schema
	conv      *rowjson.Converter
	arena     []byte

	// resolve gives the schema metadata that describes a result's
	// columns; meta is the current one (nil when the table's schema is
	// unknown, as when SHOW CREATE TABLE failed in snapshot mode).
	resolve func(*arrow.Schema) (*schemameta.Meta, error)
	meta    *schemameta.Meta

	// Messages are shallow copies of templates that hold the metadata:
	// Benthos shares a copied message's metadata until someone writes to it,
	// so a snapshot row costs no metadata work and a binlog row only its
	// positional keys.
	snapTmpl *service.Message
	binTmpl  [4]*service.Message // per op code

	// DebugWindow, with debug_metadata only, is the window whose bounds
	// every binlog row carries. A converter serves one window's read.
	DebugWindow *Window

	// CatchUp marks the rows as a table's catch-up (doris_phase); like
	// DebugWindow it lives in the templates, so a row pays nothing for it.
	CatchUp bool

	// Every row of a transaction has the same TSO: its boxed metadata
	// values are shared instead of allocated per row.
	boxedTSO                 int64
	tsoValue, tsoMsVal, txID any

	// A bulk transaction's rows of one op differ only in lsn. After
	// txTemplateRows of them, a template that also holds the TSO keys is
	// built, and each further row writes one key instead of five. Small
	// transactions never pay for the extra template.
	txRows [4]int
	txTmpl [4]*service.Message
}

// permanent marks a conversion failure as one that reading the same rows
// again cannot fix, so that the input stops instead of retrying the window
// until its binlog expires; nil stays nil.
func permanent(err error) error { return doris.Permanent(err) }

// txTemplateRows is where a per-transaction template starts paying: it
// costs about one message's metadata copy, and saves four map writes on
// every later row of the transaction and op.
const txTemplateRows = 8

// NewConverter converts rows of t; resolve may be nil (no schema
// metadata).
func NewConverter(t Table, opts rowjson.Options, resolve func(*arrow.Schema) (*schemameta.Meta, error)) *Converter {
	return &Converter{db: t.DB, table: t.Name, key: t.Key, opts: opts, resolve: resolve}
}

// Bind makes rec the batch whose rows the converter reads. Failures that
// reading the batch again cannot fix are marked permanent
// (PermanentError), as are those of every method below.
func (rc *Converter) Bind(rec arrow.RecordBatch) error {
	if rc.conv == nil || !rc.schema.Equal(rec.Schema()) {
		conv, err := rowjson.NewConverter(rec.Schema(), rc.opts)
		if err != nil {
			return permanent(fmt.Errorf("arrow schema of %s: %w", rc.key, err))
		}
		if rc.resolve != nil {
			meta, err := rc.resolve(rec.Schema())
			if err != nil {
				return err
			}
			if meta != rc.meta {
				rc.meta, rc.snapTmpl = meta, nil
				rc.resetBinlogTemplates()
			}
		}
		rc.conv, rc.schema = conv, rec.Schema()
	}
	return permanent(rc.conv.Bind(rec))
}

// template starts a message template with the keys every message has.
func (rc *Converter) template(operation string) *service.Message {
	t := service.NewMessage(nil)
	t.MetaSetMut(metaOperation, operation)
	t.MetaSetMut(metaDatabase, rc.db)
	t.MetaSetMut(metaTable, rc.table)
	if rc.meta != nil {
		rc.meta.Attach(t)
	}
	return t
}

func (rc *Converter) body(row int) ([]byte, error) {
	if cap(rc.arena)-len(rc.arena) < 512 {
		rc.arena = make([]byte, 0, 64*1024)
	}
	start := len(rc.arena)
	out, err := rc.conv.AppendRow(rc.arena, row)
	if err != nil {
		return nil, permanent(fmt.Errorf("row %d of %s: %w", row, rc.key, err))
	}
	rc.arena = out
	return out[start:len(out):len(out)], nil
}

// SnapshotMessage builds the message of snapshot row row of the bound batch.
func (rc *Converter) SnapshotMessage(row int) (*service.Message, error) {
	b, err := rc.body(row)
	if err != nil {
		return nil, err
	}
	if rc.snapTmpl == nil {
		rc.snapTmpl = rc.template("read")
	}
	msg := rc.snapTmpl.Copy()
	msg.SetBytes(b)
	return msg, nil
}

// binlogPos reads the (TSO, LSN, OP) of an @incr row.
func (rc *Converter) binlogPos(row int) (checkpoint.Pos, error) {
	tso, lsn, op, err := rc.conv.BinlogPos(row)
	if err != nil {
		return checkpoint.Pos{}, permanent(fmt.Errorf("binlog row %d of %s: %w", row, rc.key, err))
	}
	return checkpoint.Pos{TSO: tso, Table: rc.key, LSN: lsn, Op: op}, nil
}

// binlogMessage builds the message of the @incr row at pos.
func (rc *Converter) binlogMessage(row int, pos checkpoint.Pos) (*service.Message, error) {
	b, err := rc.body(row)
	if err != nil {
		return nil, err
	}
	if pos.Op < 0 || int(pos.Op) >= len(opNames) {
		return nil, permanent(fmt.Errorf("binlog row %d of %s: operation %d out of range", row, rc.key, pos.Op))
	}
	base := rc.binlogTemplate(pos.Op)
	if pos.TSO != rc.boxedTSO || rc.tsoValue == nil {
		rc.boxedTSO, rc.tsoValue, rc.tsoMsVal = pos.TSO, pos.TSO, pos.CommitMs()
		rc.txID = strconv.FormatInt(pos.TSO, 10)
		rc.txRows, rc.txTmpl = [4]int{}, [4]*service.Message{}
	}
	var msg *service.Message
	if t := rc.txTmpl[pos.Op]; t != nil {
		msg = t.Copy()
	} else {
		if rc.txRows[pos.Op]++; rc.txRows[pos.Op] == txTemplateRows {
			t = base.Copy()
			rc.setTransactionKeys(t)
			rc.txTmpl[pos.Op] = t
			msg = t.Copy()
		} else {
			msg = base.Copy()
			rc.setTransactionKeys(msg)
		}
	}
	msg.SetBytes(b)
	msg.MetaSetMut(metaLSN, pos.LSN)
	return msg, nil
}

// setTransactionKeys writes the keys that one TSO shares. The template
// already holds them, so the copied map is allocated at its final size and
// never grows.
func (rc *Converter) setTransactionKeys(msg *service.Message) {
	msg.MetaSetMut(metaTSO, rc.tsoValue)
	msg.MetaSetMut(metaCommitTS, rc.tsoMsVal)
	// A Doris commit has one time, the TSO's physical part, for the source
	// and the commit alike.
	msg.MetaSetMut(metaSourceTS, rc.tsoMsVal)
	msg.MetaSetMut(metaTransactionID, rc.txID)
}

func (rc *Converter) resetBinlogTemplates() {
	rc.binTmpl, rc.txTmpl, rc.txRows = [4]*service.Message{}, [4]*service.Message{}, [4]int{}
}

// binlogTemplate holds every binlog metadata key with the values shared by
// the rows of one op code; the positional keys are placeholders.
func (rc *Converter) binlogTemplate(op int8) *service.Message {
	if t := rc.binTmpl[op]; t != nil {
		return t
	}
	t := rc.template(opNames[op])
	t.MetaSetMut(metaTSO, int64(0))
	t.MetaSetMut(metaLSN, int64(0))
	t.MetaSetMut(metaCommitTS, int64(0))
	t.MetaSetMut(metaSourceTS, int64(0))
	t.MetaSetMut(metaTransactionID, "")
	if rc.CatchUp {
		t.MetaSetMut(metaPhase, PhaseCatchUp)
	}
	if w := rc.DebugWindow; w != nil {
		t.MetaSetMut(metaWindowStart, w.Start)
		t.MetaSetMut(metaWindowEnd, w.End)
	}
	rc.binTmpl[op] = t
	return t
}
