package checkpoint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// encoder writes the same bytes as Encode, but keeps each table's validated
// JSON between saves and encodes again only the tables that changed. A
// database input saves its whole position after every acknowledged batch,
// and almost every table is the same as last time: with 100 tables, encoding
// all of them was about 4% of the client's CPU in a snapshot, and it grows
// with the table count. A Store owns one; it is not safe for concurrent use.
type encoder struct {
	tables map[string]*encodedTable
	names  []string // the keys of tables, sorted, unless stale
	stale  bool     // a table was added since names was built
	gen    uint64   // counts encodes; an entry not seen in this one is gone
	buf    bytes.Buffer
	// head is the JSON of the fields before the tables as last encoded,
	// from headOf: while a snapshot runs the stream stays the same from
	// save to save, and its bounds need not be formatted again. headOf's
	// stream is a copy kept in headWin and headLast, reused from save to
	// save so that the copy costs no allocation either.
	head     []byte
	headOf   stateHead
	headWin  Window
	headLast Pos
}

// encodedTable is a table as last encoded: the value (its slices are
// immutable once stored, see Clone), whether it was validated with a
// stream (which some phases need), and its JSON with the quoted key.
type encodedTable struct {
	t      Table
	stream bool
	json   []byte // "key":{...}
	gen    uint64 // the encode that last saw the table
}

// stateHead and stateTail are State's fields before and after its tables,
// with State's tags and in State's order (TestEncoderMatchesEncode): the
// tables object goes between them as it is, without the scan that
// json.Marshal gives a json.RawMessage.
type stateHead struct {
	Version    int     `json:"version"`
	WindowZone string  `json:"window_zone,omitempty"`
	Stream     *Window `json:"stream,omitempty"`
}

type stateTail struct {
	ClusterID string    `json:"cluster_id,omitempty"`
	Seq       uint64    `json:"seq"`
	SavedAt   time.Time `json:"saved_at"`
}

// encode is Encode with the cache.
func (e *encoder) encode(s *State) ([]byte, error) {
	cp, err := checkEncodable(s)
	if err != nil {
		return nil, err
	}
	if err := validateHead(cp); err != nil {
		return nil, fmt.Errorf("encode checkpoint: invalid state: %w", err)
	}
	tables, err := e.encodeTables(cp.Tables, cp.Stream != nil)
	if err != nil {
		return nil, err
	}
	if err := checkZone(cp); err != nil {
		return nil, err
	}
	head, err := e.encodeHead(cp)
	if err != nil {
		return nil, err
	}
	tail, err := json.Marshal(&stateTail{ClusterID: cp.ClusterID, Seq: cp.Seq, SavedAt: cp.SavedAt})
	if err != nil {
		return nil, fmt.Errorf("encode checkpoint: %w", err)
	}
	// {head...} {tail...} -> {head...,"tables":{...},tail...}
	b := make([]byte, 0, len(head)+len(tables)+len(tail)+10)
	b = append(b, head[:len(head)-1]...)
	b = append(b, `,"tables":`...)
	b = append(b, tables...)
	b = append(b, ',')
	return append(b, tail[1:]...), nil
}

// encodeHead returns the JSON of s's fields before its tables, the last
// one again when they are unchanged. The caller copies it.
func (e *encoder) encodeHead(s *State) ([]byte, error) {
	h := stateHead{Version: s.Version, WindowZone: s.WindowZone, Stream: s.Stream}
	if e.head != nil && h.Version == e.headOf.Version && h.WindowZone == e.headOf.WindowZone && windowsEqual(h.Stream, e.headOf.Stream) {
		return e.head, nil
	}
	head, err := json.Marshal(&h)
	if err != nil {
		return nil, fmt.Errorf("encode checkpoint: %w", err)
	}
	e.head, e.headOf = head, h
	if h.Stream != nil { // a copy: the caller may change its window in place
		planned := append(e.headWin.Planned[:0], h.Stream.Planned...)
		e.headWin = *h.Stream
		e.headWin.Planned = planned
		if h.Stream.Last != nil {
			e.headLast = *h.Stream.Last
			e.headWin.Last = &e.headLast
		}
		e.headOf.Stream = &e.headWin
	}
	return head, nil
}

// encodeTables returns the tables object, encoding only what changed, and
// forgets the tables that are gone.
func (e *encoder) encodeTables(tables map[string]*Table, hasStream bool) ([]byte, error) {
	if e.tables == nil {
		e.tables = map[string]*encodedTable{}
	}
	e.gen++
	for name, t := range tables {
		et := e.tables[name]
		if et == nil || t == nil || et.stream != hasStream || !tableEqual(&et.t, t) {
			if err := validateTable(name, t, hasStream); err != nil {
				return nil, fmt.Errorf("encode checkpoint: invalid state: %w", err)
			}
			b, err := encodeEntry(name, t)
			if err != nil {
				return nil, err
			}
			if et == nil {
				et = &encodedTable{}
				e.tables[name] = et
				e.stale = true // also if a later table fails this save
			}
			et.t, et.stream, et.json = *t, hasStream, b
			et.t.CatchUp = t.CatchUp.Clone()
			if t.Pending != nil {
				p := *t.Pending
				et.t.Pending = &p
			}
		}
		et.gen = e.gen
	}
	if e.stale || len(e.tables) != len(tables) {
		e.names = e.names[:0]
		for name, et := range e.tables {
			if et.gen != e.gen {
				delete(e.tables, name)
				continue
			}
			e.names = append(e.names, name)
		}
		slices.Sort(e.names)
		e.stale = false
	}
	e.buf.Reset()
	e.buf.WriteByte('{')
	for i, name := range e.names {
		if i > 0 {
			e.buf.WriteByte(',')
		}
		e.buf.Write(e.tables[name].json)
	}
	e.buf.WriteByte('}')
	return e.buf.Bytes(), nil
}

// encodeEntry is one member of the tables object, as json.Marshal writes
// a map entry.
func encodeEntry(name string, t *Table) ([]byte, error) {
	k, err := json.Marshal(name)
	if err != nil {
		return nil, fmt.Errorf("encode checkpoint: %w", err)
	}
	v, err := json.Marshal(t)
	if err != nil {
		return nil, fmt.Errorf("encode checkpoint: table %s: %w", name, err)
	}
	return append(append(k, ':'), v...), nil
}
