package checkpoint

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

// Pos is the position of a binlog row in the order the input delivers rows
// of one window: (TSO, table, LSN, OP). Rows of one transaction share a TSO,
// so a transaction that changed several tables is one contiguous run, its
// tables in name order.
type Pos struct {
	TSO   int64  `json:"tso"`
	Table string `json:"table"`
	LSN   int64  `json:"lsn"`
	Op    int8   `json:"op"`
}

// Compare orders positions: negative when p comes first.
func (p Pos) Compare(o Pos) int {
	switch {
	case p.TSO != o.TSO:
		return cmp.Compare(p.TSO, o.TSO)
	case p.Table != o.Table:
		return strings.Compare(p.Table, o.Table)
	case p.LSN != o.LSN:
		return cmp.Compare(p.LSN, o.LSN)
	}
	return cmp.Compare(p.Op, o.Op)
}

// Less reports whether p comes before o.
func (p Pos) Less(o Pos) bool { return p.Compare(o) < 0 }

// CommitMs is when the row's transaction committed, in epoch milliseconds:
// the physical part of its TSO.
func (p Pos) CommitMs() int64 { return doris.PhysicalMs(p.TSO) }

func (p Pos) validate(what string) error {
	if p.TSO <= 0 {
		return fmt.Errorf("%s last.tso must be positive; got %d", what, p.TSO)
	}
	if _, _, err := doris.ParseTableIdentifier(p.Table); err != nil {
		return fmt.Errorf("%s last.table must be db.table; got %q", what, p.Table)
	}
	if p.LSN < 0 {
		return fmt.Errorf("%s last.lsn must not be negative; got %d", what, p.LSN)
	}
	if p.Op < 0 || p.Op > 3 {
		return fmt.Errorf("%s last.op must be 0..3; got %d", what, p.Op)
	}
	return nil
}
