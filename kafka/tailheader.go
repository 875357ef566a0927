package kafka

import (
	"encoding/json"
	"fmt"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/input/txmarkers"
)

// headerTail is written, with exactly_once, on each record of this writer
// that has no position of its own (a snapshot row, a catch-up row, a
// message of another input): it holds the partition's tail as it stood
// then. The tail search can so stop at this writer's last record of any
// kind, however many of its unpositioned records follow its last change:
// a snapshot of millions of rows needs no longer search.
const headerTail = "doris_tail"

// tailText is a tail as headerTail holds it; an empty object is a
// partition with no change of this writer yet.
type tailText struct {
	TSO   int64  `json:"tso,omitempty"`
	Table string `json:"table,omitempty"`
	LSN   int64  `json:"lsn,omitempty"`
	Op    int8   `json:"op,omitempty"`
	Null  bool   `json:"null,omitempty"`
	// Mark is the operation of a transaction marker (begin, commit): its
	// position is its TSO alone.
	Mark string `json:"mark,omitempty"`
}

// stamp writes t on r as its headerTail.
func (t tail) stamp(r *kgo.Record) {
	var tt tailText
	if t.pos != nil {
		tt = tailText{TSO: t.pos.TSO, Table: t.pos.Table, LSN: t.pos.LSN, Op: t.pos.Op, Null: t.null, Mark: markOperation(t.mark)}
	}
	b, _ := json.Marshal(tt) // a struct of plain fields cannot fail
	r.Headers = append(r.Headers, kgo.RecordHeader{Key: headerTail, Value: b})
}

// parseTail reads a headerTail value; where names the record for errors.
func parseTail(v string, where string) (tail, error) {
	var tt tailText
	if err := json.Unmarshal([]byte(v), &tt); err != nil {
		return tail{}, fmt.Errorf("%s: header %s is not a tail: %w", where, headerTail, err)
	}
	if tt.TSO == 0 && tt.Table == "" {
		return tail{}, nil
	}
	if tt.Mark != "" {
		mark := txmarkers.KindOfOperation(tt.Mark)
		if mark == txmarkers.None || tt.TSO <= 0 {
			return tail{}, fmt.Errorf("%s: header %s holds no valid marker position: %q", where, headerTail, v)
		}
		return tail{pos: &checkpoint.Pos{TSO: tt.TSO}, mark: mark}, nil
	}
	pos := checkpoint.Pos{TSO: tt.TSO, Table: tt.Table, LSN: tt.LSN, Op: tt.Op}
	if pos.TSO <= 0 || pos.Table == "" || pos.LSN < 0 || pos.Op < 0 || pos.Op > 3 {
		return tail{}, fmt.Errorf("%s: header %s holds no valid position: %q", where, headerTail, v)
	}
	return tail{pos: &pos, null: tt.Null}, nil
}
