package input

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// Metadata of merged updates (binlog_merge_updates).
const (
	metaBefore      = "before"
	operationUpdate = "update"
)

// @incr op codes of the two halves of an update (doris-facts §7).
const (
	opUpdateBefore int8 = 2
	opUpdateAfter  int8 = 3
)

// updatePairer (one per read: a retried read starts again after the last
// row handed on, which is before any held UB) merges each update_before/update_after pair of one table's
// window into one message. It runs on the table's converted batches in
// order, before the cross-table merge, so a batch handed on never ends
// between the halves: a UB that closes a batch is held back and joins the
// next one. The halves share TSO and LSN and always come in one window, so
// nothing is held across windows.
type updatePairer struct {
	table    string
	held     *heldHalf
	unpaired func(pos checkpoint.Pos, reason string)
}

type heldHalf struct {
	msg *service.Message
	pos checkpoint.Pos
}

// merge rewrites res: a UB directly followed by its UA becomes the UA with
// operation `update` and the before-image as `before`, at the UA's
// position; any other half is passed on unmerged and reported.
func (p *updatePairer) merge(res convResult) (convResult, error) {
	out := convResult{msgs: make([]*service.Message, 0, len(res.msgs)+1), pos: make([]checkpoint.Pos, 0, len(res.pos)+1)}
	pending := p.held
	p.held = nil
	for i, msg := range res.msgs {
		pos := res.pos[i]
		if pending != nil {
			if pos.Op == opUpdateAfter && pos.TSO == pending.pos.TSO && pos.LSN == pending.pos.LSN {
				if err := mergeHalves(pending.msg, msg); err != nil {
					return convResult{}, fmt.Errorf("binlog update at TSO %d LSN %d of %s: %w", pos.TSO, pos.LSN, p.table, err)
				}
				out.msgs, out.pos = append(out.msgs, msg), append(out.pos, pos)
				pending = nil
				continue
			}
			p.unpaired(pending.pos, "no update_after follows it (its after-image did not match binlog_filter, or the window was read without it)")
			out.msgs, out.pos = append(out.msgs, pending.msg), append(out.pos, pending.pos)
			pending = nil
		}
		switch pos.Op {
		case opUpdateBefore:
			pending = &heldHalf{msg: msg, pos: pos}
		case opUpdateAfter:
			p.unpaired(pos, "no update_before precedes it (its before-image did not match binlog_filter, or the position it resumed from lies between the halves)")
			out.msgs, out.pos = append(out.msgs, msg), append(out.pos, pos)
		default:
			out.msgs, out.pos = append(out.msgs, msg), append(out.pos, pos)
		}
	}
	p.held = pending
	return out, nil
}

// finish hands back the UB held at the end of a window, which has no UA.
func (p *updatePairer) finish() (convResult, bool) {
	h := p.held
	p.held = nil
	if h == nil {
		return convResult{}, false
	}
	p.unpaired(h.pos, "the window ended without its update_after (its after-image did not match binlog_filter)")
	return convResult{msgs: []*service.Message{h.msg}, pos: []checkpoint.Pos{h.pos}}, true
}

// mergeHalves turns the UA message into the merged update. The before-image
// is set with MetaSetMut: it belongs to this one message (nothing to share,
// unlike `schema`), and an immutable value would be deep-copied on every
// `@before` read, while a mutable one is copied only if a processor deep
// copies the message. Numbers are kept as json.Number, as Benthos parses
// bodies, so LARGEINT and BIGINT values stay exact.
func mergeHalves(before, after *service.Message) error {
	raw, err := before.AsBytes()
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var img map[string]any
	if err := dec.Decode(&img); err != nil {
		return fmt.Errorf("before-image: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("before-image: trailing data after the JSON object")
	}
	after.MetaSetMut(metaOperation, operationUpdate)
	after.MetaSetMut(metaBefore, img)
	return nil
}
