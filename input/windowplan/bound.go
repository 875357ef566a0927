package windowplan

import (
	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// Bound is a window bound: a whole second of the Doris clock, as UTC epoch
// ms. It comes from /api/tso (or from the checkpoint's typed bounds) and is
// formatted only where the @incr SQL is built and in logs; comparisons and
// arithmetic work on the instant.
type Bound int64

// BoundAt floors epoch ms to the second.
func BoundAt(ms int64) Bound {
	return Bound(ms - ((ms%1000)+1000)%1000)
}

// BoundOf is the bound a checkpoint holds (UTC, as window_zone says once
// the state is converted); no text is involved.
func BoundOf(b checkpoint.Bound) Bound { return Bound(b.Ms()) }

// Stored is b as the checkpoint holds it.
func (b Bound) Stored() checkpoint.Bound { return checkpoint.BoundAt(b.Ms()) }

// Ms is the bound's epoch ms, a multiple of 1000.
func (b Bound) Ms() int64 { return int64(b) }

// String is the bound's text, yyyy-MM-dd HH:mm:ss in UTC: what the @incr
// SQL and the checkpoint hold.
func (b Bound) String() string { return doris.UTCWindowBound(int64(b)) }
