package output

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

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
	label             string      // kept across the attempts of one WriteBatch
	ready             bool        // encoded and labelled
	loaded            bool        // in Doris: later attempts of the batch skip it
	scan              *schemaScan // the messages' schemas, when the schema check applies
}

// splitBatch groups a batch by target table, keeping message order within each
// group and groups in order of first appearance. It runs per message, so it
// reads only what the label will use: once a part has lost its position
// (snapshot rows, messages of other inputs) it reads no positions or
// sources.
func splitBatch(conf *config, batch service.MessageBatch) ([]*part, error) {
	byTarget := map[string]*part{}
	var parts []*part
	static, isStatic := conf.target.Static()
	for i, m := range batch {
		target := static
		if !isStatic {
			// Per message: the batch form converts the whole batch on every call.
			var err error
			if target, err = conf.target.TryString(m); err != nil {
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
			if checksSchemas(conf) {
				p.scan = &schemaScan{exact: conf.evolve}
			}
			if len(parts) == 0 {
				// Most batches have one target: room for all of it at once.
				p.msgs, p.ops = make([]int, 0, len(batch)), make([]string, 0, len(batch))
			}
			byTarget[target] = p
			parts = append(parts, p)
		}
		op := ""
		if conf.cdc != cdcOff {
			if v, ok := m.MetaGetMut(metaOperation); ok {
				op = metaText(v)
			} else if conf.cdc == cdcOn {
				return nil, fmt.Errorf("message %d into %s has no operation metadata and cdc is true", i, target)
			}
		}
		if op != "" {
			p.cdc = true
		}
		if p.positioned {
			p.place(m, op, conf.cdc == cdcOff)
		}
		if p.scan != nil {
			p.scan.note(m, i, target)
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
