package changes

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

// Pairer merges each update_before/update_after pair of a window into one
// message (binlog_merge_updates). It runs on each batch's rows in order, as
// they are emitted: the halves share TSO, table and LSN, so nothing comes
// between them in (TSO, table, LSN, OP) order, and Merge never ends a batch
// between them (it takes the update_after into the batch that an
// update_before fills). So nothing is held from one batch into the next:
// a batch's boundaries depend only on the rows from the committed position
// on, and a restart cuts the batches it cut before, which is what labels
// derived from a batch's first and last positions and its count rely on
// (doris_load's). An update_before that still ends a batch has no
// update_after, and goes out unmerged.
type Pairer struct {
	unpaired func(pos checkpoint.Pos, reason string)
}

// NewPairer merges update pairs; unpaired is told of every half that is
// handed on unmerged, and why.
func NewPairer(unpaired func(pos checkpoint.Pos, reason string)) *Pairer {
	return &Pairer{unpaired: unpaired}
}

type pendingHalf struct {
	msg *service.Message
	pos checkpoint.Pos
}

// Merge rewrites res, one batch: a UB directly followed by its UA becomes
// the UA with operation `update` and the before-image as `before`, at the
// UA's position; any other half is passed on unmerged and reported.
func (p *Pairer) Merge(res Result) (Result, error) {
	out := Result{Msgs: make([]*service.Message, 0, len(res.Msgs)), Pos: make([]checkpoint.Pos, 0, len(res.Pos))}
	var pending *pendingHalf
	for i, msg := range res.Msgs {
		pos := res.Pos[i]
		if pending != nil {
			if isUpdateAfterOf(pos, pending.pos) {
				if err := mergeHalves(pending.msg, msg); err != nil {
					return Result{}, fmt.Errorf("binlog update at TSO %d LSN %d of %s: %w", pos.TSO, pos.LSN, pos.Table, err)
				}
				out.Msgs, out.Pos = append(out.Msgs, msg), append(out.Pos, pos)
				pending = nil
				continue
			}
			p.unpaired(pending.pos, "no update_after follows it (its after-image did not match binlog_filter, or the window was read without it)")
			out.Msgs, out.Pos = append(out.Msgs, pending.msg), append(out.Pos, pending.pos)
			pending = nil
		}
		switch pos.Op {
		case opUpdateBefore:
			pending = &pendingHalf{msg: msg, pos: pos}
		case opUpdateAfter:
			p.unpaired(pos, "no update_before precedes it (its before-image did not match binlog_filter, or the position it resumed from lies between the halves)")
			out.Msgs, out.Pos = append(out.Msgs, msg), append(out.Pos, pos)
		default:
			out.Msgs, out.Pos = append(out.Msgs, msg), append(out.Pos, pos)
		}
	}
	if pending != nil {
		p.unpaired(pending.pos, "no update_after follows it (its after-image did not match binlog_filter)")
		out.Msgs, out.Pos = append(out.Msgs, pending.msg), append(out.Pos, pending.pos)
	}
	return out, nil
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
