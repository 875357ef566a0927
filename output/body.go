package output

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

// encodeBody writes the part's Stream Load body.
func encodeBody(conf *config, batch service.MessageBatch, p *part) error {
	p.rows = 0
	deleteSign := p.cdc && p.model == keysUnique
	buf := bytes.NewBuffer(make([]byte, 0, bodySize(conf, batch, p, deleteSign)))
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
		if conf.format == formatCSV {
			raw = bytes.TrimRight(raw, "\r\n")
			if bytes.IndexByte(raw, '\n') >= 0 {
				return fmt.Errorf("message %d into %s holds a line break; format csv takes one row per message", i, p.target)
			}
			buf.Write(raw)
			if deleteSign {
				buf.WriteString(conf.csvSeparator)
				buf.WriteByte(sign)
			}
			buf.WriteByte('\n')
			p.rows++
			continue
		}
		var seq []byte
		if conf.seqCol != "" {
			tso, ok := metaInt(batch[i], metaTSO)
			if !ok && op != opRead {
				return fmt.Errorf("message %d into %s has no tso metadata for sequence_column %s", i, p.target, conf.seqCol)
			}
			seq = strconv.AppendInt(nil, tso, 10) // snapshot rows: 0, older than any change
		}
		if err := appendJSONRow(buf, raw, deleteSign, sign, conf.seqCol, conf.seqKey, seq); err != nil {
			return fmt.Errorf("message %d into %s: %w", i, p.target, err)
		}
		p.rows++
	}
	p.body = buf.Bytes()
	return nil
}

// bodySize is the size of the part's body, so that encodeBody writes it into
// one allocation instead of growing a buffer by copies: each row is at most
// its message, a line break and what encodeBody adds to it, since trimming and
// compacting only shrink it. Only a row whose sequence member is dropped
// can outgrow it (dropMember re-escapes member names); the buffer then
// grows as usual.
func bodySize(conf *config, batch service.MessageBatch, p *part, deleteSign bool) int {
	extra := 1 // the line break
	switch {
	case conf.format == formatCSV:
		if deleteSign {
			extra += len(conf.csvSeparator) + 1
		}
	default:
		if deleteSign {
			extra += len(`,"` + deleteSignColumn + `":0`)
		}
		if conf.seqCol != "" {
			extra += 1 + len(conf.seqKey) + 1 + len("-9223372036854775808")
		}
	}
	n := 0
	for k, i := range p.msgs {
		if p.ops[k] == opUpdateBefore {
			continue
		}
		raw, err := batch[i].AsBytes()
		if err != nil {
			continue // encodeBody reports it
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

func jsonString(s string) ([]byte, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encode %q: %w", s, err)
	}
	return b, nil
}
