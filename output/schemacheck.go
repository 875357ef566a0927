package output

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/redpanda-data/benthos/v4/public/schema"
	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/doris/ddl"
)

// msgSchema is one distinct schema among a part's messages.
type msgSchema struct {
	fp    string
	key   string // fp, and the doris_schema fingerprint when there is one: verdicts are cached by it
	value any    // the metadata value, parsed only when its verdict is not cached
	doris any    // the doris_schema value (exact Doris types), nil when none
	first int    // the batch index of its first message
	tso   int64  // that message's tso, 0 when it has none
}

// schemaScan collects the distinct schemas of a part's messages in order
// of first appearance. splitBatch feeds it each message while it reads the
// message's other metadata, so the lookup finds the metadata in cache; per
// message it costs that lookup and, when the value is not the previous
// message's map, a fingerprint comparison.
type schemaScan struct {
	schemas []msgSchema
	err     error
	last    string
	lastMap unsafe.Pointer
	// exact: read doris_schema too (schema_evolution, which adds and
	// widens columns to their exact Doris types). A VARCHAR lengthened at
	// the source leaves the Common fingerprint as it was, so the
	// description is part of a schema's identity.
	exact     bool
	lastDoris unsafe.Pointer
}

// note takes message i's schema metadata, if any.
func (sc *schemaScan) note(m *service.Message, i int, target string) {
	if sc.err != nil {
		return
	}
	v, ok := m.MetaGetImmut(metaSchema)
	if !ok {
		return
	}
	var dv any
	var dp unsafe.Pointer
	if sc.exact {
		dv, dp = description(m)
	}
	// The input attaches one value per table schema to all its messages:
	// the same maps as the previous message's are the same schema.
	if iv, ok := v.(service.ImmutableAny); ok && sc.lastMap != nil && dp == sc.lastDoris {
		if mv, ok := iv.V.(map[string]any); ok && mapPointer(mv) == sc.lastMap {
			return
		}
	}
	fp, val, err := schemaFingerprint(v)
	if err != nil {
		sc.err = doris.Permanent(fmt.Errorf("message %d into %s: %s metadata: %w", i, target, metaSchema, err))
		return
	}
	if val == nil {
		return // not a Common schema: some other use of the key
	}
	sc.lastMap, sc.lastDoris = nil, dp
	if mv, ok := val.(map[string]any); ok {
		sc.lastMap = mapPointer(mv)
	}
	key := fp
	if dv != nil {
		key = fp + "/" + ddl.DescriptionFingerprint(dv)
	}
	if key == sc.last && len(sc.schemas) > 0 {
		return
	}
	sc.last = key
	for _, s := range sc.schemas {
		if s.key == key {
			return
		}
	}
	tso, _ := metaInt(m, metaTSO)
	sc.schemas = append(sc.schemas, msgSchema{fp: fp, key: key, value: val, doris: dv, first: i, tso: tso})
}

// description returns the message's doris_schema value and its identity;
// nil when it has none or it is not an object.
func description(m *service.Message) (any, unsafe.Pointer) {
	v, ok := m.MetaGetImmut(ddl.MetaKey)
	if !ok {
		return nil, nil
	}
	switch iv := v.(type) {
	case service.ImmutableAny:
		v = iv.V
	case service.ImmutableValue:
		v = iv.Copy()
	}
	mv, ok := v.(map[string]any)
	if !ok {
		return nil, nil
	}
	return mv, mapPointer(mv)
}

// partSchemas lists the distinct schemas of the part's messages, from the
// scan splitBatch made, or by scanning them now.
func partSchemas(batch service.MessageBatch, p *part) ([]msgSchema, error) {
	if p.scan == nil {
		p.scan = &schemaScan{}
		for _, i := range p.msgs {
			p.scan.note(batch[i], i, p.target)
		}
	}
	return p.scan.schemas, p.scan.err
}

// mapPointer is the identity of a map: a map value is a pointer to its
// header, which Go does not let maps compare by.
func mapPointer(m map[string]any) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&m)) }

// schemaFingerprint reads the fingerprint that Common.ToAny puts at the top
// of the value; a value without one (an older producer) is parsed and
// fingerprinted, which costs a parse per message. A value that is not an
// object (a string someone stored under the key) is no Common schema: it
// is returned as nil and the message is loaded as one without schema.
func schemaFingerprint(v any) (string, any, error) {
	switch iv := v.(type) {
	case service.ImmutableAny:
		v = iv.V
	case service.ImmutableValue:
		v = iv.Copy()
	}
	m, ok := v.(map[string]any)
	if !ok {
		return "", nil, nil
	}
	if fp, ok := m["fingerprint"].(string); ok && fp != "" {
		return fp, v, nil
	}
	c, err := schema.ParseFromAny(v)
	if err != nil {
		return "", nil, err
	}
	fp, _ := c.ToAny().(map[string]any)["fingerprint"].(string)
	return fp, v, nil
}

// verdict is what one message schema needs from one target's columns.
type verdict struct {
	names   map[string]bool   // the schema's columns, lower case
	missing []schema.Common   // columns the target lacks
	exact   map[string]string // lower-case name -> the source's Doris type, from doris_schema
	widen   []widening        // target columns to widen first
	bad     []string          // mismatches nothing here fixes, described
}

type widening struct {
	col      schema.Common
	from, to string
	exact    bool // to is the source's own type (doris_schema), judged by exactFit
}

// addType is the type ADD COLUMN gives column c: the source's exact Doris
// type when the messages carry it, else the Common mapping create_tables
// uses.
func (v *verdict) addType(c schema.Common) (string, error) {
	if t := v.exact[strings.ToLower(c.Name)]; t != "" {
		return t, nil
	}
	return ddl.ColumnType(c)
}

func (v *verdict) ok() bool { return len(v.missing) == 0 && len(v.widen) == 0 && len(v.bad) == 0 }

// targetSchema is what the output knows of one target's columns, and the
// verdicts of the message schemas seen against them. mu serialises the
// checks and schema changes of the target.
type targetSchema struct {
	mu       sync.Mutex
	cols     map[string]doris.ColumnDef // lower-case name -> column
	keys     map[string]bool
	nullable map[string]bool
	readAt   time.Time
	verdicts map[string]*verdict // fingerprint -> verdict against cols

	// Stream order, for drop_columns: the columns of the newest schema
	// seen, its tso, and the tso at which each dropped column went.
	last      map[string]bool
	lastTSO   int64
	droppedAt map[string]int64
}

// targetSchemas holds the targetSchema of every target, each read once
// and again only when a verdict finds a column missing.
type targetSchemas struct {
	fe *doris.Client // SHOW CREATE TABLE and ALTER TABLE, through the FE's statement API
	mu sync.Mutex
	m  map[string]*targetSchema
}

func newTargetSchemas(fe *doris.Client) *targetSchemas {
	return &targetSchemas{fe: fe, m: map[string]*targetSchema{}}
}

// of returns the target's entry, reading its columns the first time.
// The entry is returned locked.
func (t *targetSchemas) of(ctx context.Context, p *part) (*targetSchema, error) {
	t.mu.Lock()
	ts := t.m[p.target]
	if ts == nil {
		ts = &targetSchema{droppedAt: map[string]int64{}}
		t.m[p.target] = ts
	}
	t.mu.Unlock()
	ts.mu.Lock()
	if ts.cols == nil {
		if err := t.read(ctx, ts, p); err != nil {
			ts.mu.Unlock()
			return nil, err
		}
	}
	return ts, nil
}

// seed sets the columns of a target this output has just created (with a
// statement that fails on an existing table), so that its first load needs
// no SHOW CREATE TABLE. A target already read is left as it is.
func (t *targetSchemas) seed(p *part, cols []ddl.Column, keys []string) {
	t.mu.Lock()
	ts := t.m[p.target]
	if ts == nil {
		ts = &targetSchema{droppedAt: map[string]int64{}}
		t.m[p.target] = ts
	}
	t.mu.Unlock()
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.cols != nil {
		return
	}
	ts.cols = make(map[string]doris.ColumnDef, len(cols))
	ts.nullable = make(map[string]bool, len(cols))
	for _, c := range cols {
		name := strings.ToLower(c.Name)
		ts.cols[name] = doris.ColumnDef{Name: c.Name, Type: c.Type, Comment: c.Comment}
		ts.nullable[name] = c.Nullable
	}
	ts.keys = make(map[string]bool, len(keys))
	for _, k := range keys {
		ts.keys[strings.ToLower(k)] = true
	}
	ts.readAt = time.Now()
	ts.verdicts = map[string]*verdict{}
}

// read (re)reads the target's columns and forgets the verdicts.
func (t *targetSchemas) read(ctx context.Context, ts *targetSchema, p *part) error {
	props, err := doris.FetchTableProperties(ctx, t.fe, p.db, p.table)
	if err != nil {
		return fmt.Errorf("columns of %s: %w", p.target, err)
	}
	ts.cols = make(map[string]doris.ColumnDef, len(props.Columns))
	for _, c := range props.Columns {
		ts.cols[strings.ToLower(c.Name)] = c
	}
	ts.keys = map[string]bool{}
	for _, k := range props.KeyColumns {
		ts.keys[strings.ToLower(k)] = true
	}
	ts.nullable = map[string]bool{}
	for k, v := range props.Nullable {
		ts.nullable[strings.ToLower(k)] = v
	}
	ts.readAt = time.Now()
	ts.verdicts = map[string]*verdict{}
	return nil
}

// verdict judges s against the target's columns, once per fingerprint.
// Types are only judged with schema_evolution: without it a column loads
// as it did before, and only a missing one stops the batch.
func (ts *targetSchema) verdict(conf *config, p *part, s msgSchema) (*verdict, error) {
	if v, ok := ts.verdicts[s.key]; ok {
		return v, nil
	}
	c, err := schema.ParseFromAny(s.value)
	if err != nil {
		return nil, doris.Permanent(fmt.Errorf("message %d into %s: %s metadata: %w", s.first, p.target, metaSchema, err))
	}
	v := &verdict{names: make(map[string]bool, len(c.Children))}
	if s.doris != nil {
		if v.exact, err = ddl.ColumnTypes(s.doris); err != nil {
			return nil, doris.Permanent(fmt.Errorf("message %d into %s: %w", s.first, p.target, err))
		}
	}
	for _, col := range c.Children {
		name := strings.ToLower(col.Name)
		v.names[name] = true
		have, ok := ts.cols[name]
		switch {
		case !ok:
			v.missing = append(v.missing, col)
			continue
		case !conf.evolve:
			continue
		}
		if src := v.exact[name]; src != "" {
			if f, to, judged := exactFit(src, have.Type); judged {
				switch {
				case f == fitWiden && ts.keys[name]:
					v.bad = append(v.bad, fmt.Sprintf("key column %s is %s in %s and %s at the source, and doris_load does not change a key column", col.Name, have.Type, p.target, src))
				case f == fitWiden:
					v.widen = append(v.widen, widening{col: col, from: have.Type, to: to, exact: true})
				}
				continue
			}
		}
		f, to := typeFit(col, have.Type)
		switch {
		case f == fitWiden && ts.keys[name]:
			v.bad = append(v.bad, fmt.Sprintf("key column %s is %s in %s and %s in the messages, and doris_load does not change a key column", col.Name, have.Type, p.target, commonTypeName(col)))
		case f == fitWiden:
			v.widen = append(v.widen, widening{col: col, from: have.Type, to: to})
		case f == fitNo:
			v.bad = append(v.bad, fmt.Sprintf("column %s is %s in %s and %s in the messages, which Doris cannot widen into it", col.Name, have.Type, p.target, commonTypeName(col)))
		}
	}
	ts.verdicts[s.key] = v
	return v, nil
}

// commonTypeName names a Common type with its parameters.
func commonTypeName(c schema.Common) string {
	if c.Type == schema.Decimal && c.Logical != nil && c.Logical.Decimal != nil {
		return fmt.Sprintf("DECIMAL(%d, %d)", c.Logical.Decimal.Precision, c.Logical.Decimal.Scale)
	}
	if t, err := ddl.ColumnType(c); err == nil && c.Type != schema.String {
		return c.Type.String() + " (" + t + ")"
	}
	return c.Type.String()
}

func missingNames(cols []schema.Common) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.Name
	}
	return out
}

// carried keeps the columns of cols that some message of schema fp in the
// part holds as a top-level key of its body. A processor may have removed
// a column from the bodies and left the schema metadata as it was: such a
// column has no value to lose. It costs a parse of the schema's messages,
// and runs only when a column is missing from the target.
func carried(batch service.MessageBatch, p *part, fp string, cols []schema.Common) []schema.Common {
	want := make(map[string]schema.Common, len(cols))
	for _, c := range cols {
		want[strings.ToLower(c.Name)] = c
	}
	var out []schema.Common
	for _, i := range p.msgs {
		if len(want) == 0 {
			break
		}
		v, ok := batch[i].MetaGetImmut(metaSchema)
		if !ok {
			continue
		}
		if f, val, err := schemaFingerprint(v); err != nil || val == nil || f != fp {
			continue
		}
		raw, err := batch[i].AsBytes()
		if err != nil {
			continue
		}
		for _, k := range topLevelKeys(raw) {
			if c, ok := want[strings.ToLower(k)]; ok {
				out = append(out, c)
				delete(want, strings.ToLower(k))
			}
		}
	}
	return out
}

// topLevelKeys lists the member names of a JSON object; a body that is not
// one has none (encoding reports it).
func topLevelKeys(raw []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return keys
		}
		k, _ := tok.(string)
		keys = append(keys, k)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return keys
		}
	}
	return keys
}
