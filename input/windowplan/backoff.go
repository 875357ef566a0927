package windowplan

import (
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

// readBackoff grows from 1s to 30s with jitter, for errors that are not
// Doris's own "retry this window" answers.
var readBackoff = doris.BackoffPolicy{Base: time.Second, Max: 30 * time.Second}

// Backoff counts the failures of one read loop and waits as readBackoff
// says. The zero Backoff starts at the first attempt.
type Backoff struct{ attempt int }

// Next counts a failure and returns the wait before the next attempt.
func (b *Backoff) Next() time.Duration {
	b.attempt++
	return readBackoff.Wait(b.attempt)
}
