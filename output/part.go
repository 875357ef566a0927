package output

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

// Change operations, as doris_binlog (and the Redpanda Connect CDC inputs)
// set them in the `operation` metadata.
const (
	opRead         = "read"
	opInsert       = "insert"
	opUpdate       = "update"
	opUpdateBefore = "update_before"
	opUpdateAfter  = "update_after"
	opDelete       = "delete"
)

// Metadata keys read from messages.
const (
	metaOperation = "operation"
	metaTSO       = "tso"
	metaLSN       = "lsn"
	metaDatabase  = "database_schema"
	metaTable     = "table"
)

const (
	deleteSignColumn = "__DORIS_DELETE_SIGN__"
	keysUnique       = "UNIQUE_KEYS"
	keysDuplicate    = "DUP_KEYS"
)

// part is the share of a batch bound for one table: one Stream Load.
type part struct {
	target, db, table string
	msgs              []int // indexes into the batch, in order
	ops               []string
	positioned        bool     // every message carries tso, lsn, operation and its source table
	sources           []string // the source tables, in order of first appearance
	lastDB, lastTable string   // the source of the latest positioned message
	first, last       position
	cdc               bool   // some message is a change event
	model             string // keysType, looked up only when needed
	body              []byte
	rows              int
	label             string // kept across the attempts of one WriteBatch
	ready             bool   // encoded and labelled
	loaded            bool   // in Doris: later attempts of the batch skip it
}

// split groups a batch by target table, keeping message order within each
// group and groups in order of first appearance. It runs per message, so it
// reads only what the label will use: once a part has lost its position
// (snapshot rows, messages of other inputs) it reads no positions or
// sources.
func (o *dorisLoad) split(batch service.MessageBatch) ([]*part, error) {
	byTarget := map[string]*part{}
	var parts []*part
	static, isStatic := o.conf.target.Static()
	for i, m := range batch {
		target := static
		if !isStatic {
			// Per message: the batch form converts the whole batch on every call.
			var err error
			if target, err = o.conf.target.TryString(m); err != nil {
				return nil, fmt.Errorf("field %s of message %d: %w", fieldTableIdentifier, i, err)
			}
		}
		p := byTarget[target]
		if p == nil {
			db, table, err := doris.ParseTableIdentifier(target)
			if err != nil {
				return nil, fmt.Errorf("field %s of message %d: %w", fieldTableIdentifier, i, err)
			}
			p = &part{target: target, db: db, table: table, positioned: true}
			if len(parts) == 0 {
				// Most batches have one target: room for all of it at once.
				p.msgs, p.ops = make([]int, 0, len(batch)), make([]string, 0, len(batch))
			}
			byTarget[target] = p
			parts = append(parts, p)
		}
		op := ""
		if o.conf.cdc != cdcOff {
			if v, ok := m.MetaGetMut(metaOperation); ok {
				op = metaText(v)
			} else if o.conf.cdc == cdcOn {
				return nil, fmt.Errorf("message %d into %s has no operation metadata and cdc is true", i, target)
			}
		}
		if op != "" {
			p.cdc = true
		}
		if p.positioned {
			p.place(m, op, o.conf.cdc == cdcOff)
		}
		p.msgs = append(p.msgs, i)
		p.ops = append(p.ops, op)
	}
	return parts, nil
}

// place takes the message's position and source into the part's label, or
// marks the part unpositioned when it has none.
func (p *part) place(m *service.Message, op string, cdcOff bool) {
	pos, ok := messagePosition(m, op)
	if !ok || cdcOff {
		p.positioned = false
		return
	}
	db, ok1 := m.MetaGetMut(metaDatabase)
	table, ok2 := m.MetaGetMut(metaTable)
	if !ok1 || !ok2 {
		p.positioned = false
		return
	}
	if len(p.msgs) == 0 {
		p.first = pos
	}
	p.last = pos
	// A run of one source's messages builds its name once.
	dbName, tableName := metaText(db), metaText(table)
	if dbName != p.lastDB || tableName != p.lastTable || len(p.sources) == 0 {
		p.lastDB, p.lastTable = dbName, tableName
		if src := sourceName(dbName, tableName); !slices.Contains(p.sources, src) {
			p.sources = append(p.sources, src)
		}
	}
}

// messagePosition reads tso and lsn; both must be integers.
func messagePosition(m *service.Message, op string) (position, bool) {
	if op == "" {
		return position{}, false
	}
	tso, ok1 := metaInt(m, metaTSO)
	lsn, ok2 := metaInt(m, metaLSN)
	if !ok1 || !ok2 {
		return position{}, false
	}
	return position{tso: tso, lsn: lsn, op: op}, true
}

// sourceName names a message's source table. Positions are only unique
// within a source, so a label built from them needs it.
func sourceName(db, table string) string { return db + "\x00" + table }

// metaText is a metadata value as text; the inputs set strings, which need
// no formatting.
func metaText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}

func metaInt(m *service.Message, key string) (int64, bool) {
	v, ok := m.MetaGetMut(key)
	if !ok {
		return 0, false
	}
	switch n := v.(type) {
	case int64:
		return n, true
	case int:
		return int64(n), true
	case int32:
		return int64(n), true
	case uint64:
		return int64(n), n <= 1<<63-1
	case float64:
		return int64(n), n == float64(int64(n))
	case json.Number:
		i, err := n.Int64()
		return i, err == nil
	case string:
		i, err := strconv.ParseInt(n, 10, 64)
		return i, err == nil
	}
	return 0, false
}

// needsModel reports whether encoding depends on the table's key model.
func (o *dorisLoad) needsModel(p *part) bool {
	return p.cdc || o.conf.seqCol != ""
}

// encode writes the part's Stream Load body.
func (o *dorisLoad) encode(batch service.MessageBatch, p *part) error {
	p.rows = 0
	deleteSign := p.cdc && p.model == keysUnique
	buf := bytes.NewBuffer(make([]byte, 0, o.bodySize(batch, p, deleteSign)))
	for k, i := range p.msgs {
		op := p.ops[k]
		sign := byte('0')
		switch op {
		case "", opRead, opInsert, opUpdate, opUpdateAfter:
		case opUpdateBefore:
			continue // the update_after image upserts the key
		case opDelete:
			if p.model != keysUnique {
				return fmt.Errorf("message %d deletes from %s, a %s table: Doris deletes by key only in UNIQUE KEY tables; drop deletes before doris_load or load into a UNIQUE KEY table", i, p.target, modelName(p.model))
			}
			sign = '1'
		default:
			return fmt.Errorf("message %d into %s has unknown operation %q", i, p.target, op)
		}
		raw, err := batch[i].AsBytes()
		if err != nil {
			return fmt.Errorf("message %d into %s: %w", i, p.target, err)
		}
		if o.conf.format == formatCSV {
			raw = bytes.TrimRight(raw, "\r\n")
			if bytes.IndexByte(raw, '\n') >= 0 {
				return fmt.Errorf("message %d into %s holds a line break; format csv takes one row per message", i, p.target)
			}
			buf.Write(raw)
			if deleteSign {
				buf.WriteString(o.conf.csvSeparator)
				buf.WriteByte(sign)
			}
			buf.WriteByte('\n')
			p.rows++
			continue
		}
		var seq []byte
		if o.conf.seqCol != "" {
			tso, ok := metaInt(batch[i], metaTSO)
			if !ok && op != opRead {
				return fmt.Errorf("message %d into %s has no tso metadata for sequence_column %s", i, p.target, o.conf.seqCol)
			}
			seq = strconv.AppendInt(nil, tso, 10) // snapshot rows: 0, older than any change
		}
		if err := appendJSONRow(buf, raw, deleteSign, sign, o.conf.seqCol, o.conf.seqKey, seq); err != nil {
			return fmt.Errorf("message %d into %s: %w", i, p.target, err)
		}
		p.rows++
	}
	p.body = buf.Bytes()
	return nil
}

// bodySize is the size of the part's body, so that encode writes it into
// one allocation instead of growing a buffer by copies: each row is at most
// its message, a line break and what encode adds to it, since trimming and
// compacting only shrink it. Only a row whose sequence member is dropped
// can outgrow it (dropMember re-escapes member names); the buffer then
// grows as usual.
func (o *dorisLoad) bodySize(batch service.MessageBatch, p *part, deleteSign bool) int {
	extra := 1 // the line break
	switch {
	case o.conf.format == formatCSV:
		if deleteSign {
			extra += len(o.conf.csvSeparator) + 1
		}
	default:
		if deleteSign {
			extra += len(`,"` + deleteSignColumn + `":0`)
		}
		if o.conf.seqCol != "" {
			extra += 1 + len(o.conf.seqKey) + 1 + len("-9223372036854775808")
		}
	}
	n := 0
	for k, i := range p.msgs {
		if p.ops[k] == opUpdateBefore {
			continue
		}
		raw, err := batch[i].AsBytes()
		if err != nil {
			continue // encode reports it
		}
		n += len(raw) + extra
	}
	return n
}

func modelName(keysType string) string {
	switch keysType {
	case keysDuplicate:
		return "DUPLICATE KEY"
	case "AGG_KEYS":
		return "AGGREGATE KEY"
	case "":
		return "non-UNIQUE KEY"
	}
	return keysType
}

// appendJSONRow writes one JSON object as a line, adding the delete sign and
// the sequence value by splicing them before the closing brace: re-encoding
// every row would cost far more than the load. A row that already holds the
// sequence column (replicating a replica) loses that member first: the
// change's tso is what orders this stream, and a key sent twice is loaded as
// whichever of the two Doris's parser keeps.
func appendJSONRow(buf *bytes.Buffer, raw []byte, withSign bool, sign byte, seqCol string, seqKey, seq []byte) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '{' || raw[len(raw)-1] != '}' {
		return fmt.Errorf("format json needs one JSON object per message; got %s", doris.Snippet(raw))
	}
	if bytes.IndexByte(raw, '\n') >= 0 || bytes.IndexByte(raw, '\r') >= 0 {
		var c bytes.Buffer
		if err := json.Compact(&c, raw); err != nil {
			return fmt.Errorf("format json: %w", err)
		}
		raw = c.Bytes()
	}
	if seq != nil && mayHoldMember(raw, seqCol) {
		var err error
		if raw, err = dropMember(raw, seqCol); err != nil {
			return fmt.Errorf("format json: %w", err)
		}
	}
	if !withSign && seq == nil {
		buf.Write(raw)
		buf.WriteByte('\n')
		return nil
	}
	body := raw[:len(raw)-1]
	empty := len(bytes.TrimSpace(body[1:])) == 0
	buf.Write(body)
	if withSign {
		if !empty {
			buf.WriteByte(',')
		}
		buf.WriteString(`"` + deleteSignColumn + `":`)
		buf.WriteByte(sign)
		empty = false
	}
	if seq != nil {
		if !empty {
			buf.WriteByte(',')
		}
		buf.Write(seqKey)
		buf.WriteByte(':')
		buf.Write(seq)
	}
	buf.WriteString("}\n")
	return nil
}

// mayHoldMember is a cheap test that rules out most rows: a member name
// can only hide from a plain byte search behind an escape.
func mayHoldMember(raw []byte, name string) bool {
	return bytes.IndexByte(raw, '\\') >= 0 || bytes.Contains(raw, []byte(name))
}

// dropMember returns the JSON object raw without its top-level members
// called name, the other members unchanged and in order.
func dropMember(raw []byte, name string) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(raw))
	out = append(out, '{')
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil, err
		}
		if key == name {
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		k, err := jsonString(key)
		if err != nil {
			return nil, err
		}
		out = append(append(append(out, k...), ':'), val...)
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("data after the object: %s", doris.Snippet(raw))
	}
	return append(out, '}'), nil
}

// tableModel returns the target's keysType from GET /api/{db}/{table}/_schema,
// once per table for the output's life.
func (o *dorisLoad) tableModel(ctx context.Context, p *part) (string, error) {
	o.modelsMu.Lock()
	m, ok := o.models[p.target]
	o.modelsMu.Unlock()
	if ok {
		return m, nil
	}
	s, err := doris.Schema(ctx, o.fe, p.db, p.table)
	if err != nil {
		return "", fmt.Errorf("key model of %s: %w", p.target, err)
	}
	m = strings.ToUpper(s.KeysType)
	o.modelsMu.Lock()
	o.models[p.target] = m
	o.modelsMu.Unlock()
	return m, nil
}
