package input

import (
	"sync"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

// maxSaveOutage bounds how long checkpoint saves may keep failing with errors
// that look transient: past it the input stops, since a position that no
// longer moves means an ever larger replay after a restart.
const maxSaveOutage = 5 * time.Minute

// saveHealth follows the outcome of checkpoint saves, so that an outage logs
// once when it starts and once when it ends.
type saveHealth struct {
	mu    sync.Mutex
	since time.Time // first failure of the current outage; zero when saving works
	fails int
	now   func() time.Time
}

// checkSave turns a save's outcome into what the delivery sees: nil, the
// error (a later ack saves again), or a fatal error that stops the input
// when the cache refuses the value for good or has failed for too long. The
// position is never moved past a failed save either way.
func (r *reader) checkSave(err error) error {
	h := &r.saveHealth
	h.mu.Lock()
	defer h.mu.Unlock()
	now := time.Now
	if h.now != nil {
		now = h.now
	}
	if err == nil {
		if h.fails > 0 {
			r.log.Infof("Checkpoint saves to cache %s work again, after %d failed attempt(s) over %s",
				r.conf.CheckpointCache, h.fails, now().Sub(h.since).Round(time.Millisecond))
		}
		h.fails, h.since = 0, time.Time{}
		return nil
	}
	if doris.IsPermanent(err) {
		return fatalf("checkpoint_cache %s: the checkpoint (key %s) cannot be saved, and trying again cannot change that: %v. "+
			"The input stops; the stored position stays before every change not saved, which is read again after a restart",
			r.conf.CheckpointCache, r.conf.CheckpointKey, err)
	}
	if h.fails == 0 {
		h.since = now()
		r.log.Warnf("Checkpoint save to cache %s failed; it is tried again with the next acknowledgement, for up to %s: %v",
			r.conf.CheckpointCache, maxSaveOutage, err)
	}
	h.fails++
	if d := now().Sub(h.since); d >= maxSaveOutage {
		return fatalf("checkpoint_cache %s: saving the checkpoint (key %s) has failed for %s (%d attempts), last with: %v. "+
			"The input stops; the stored position stays before every change not saved, which is read again after a restart",
			r.conf.CheckpointCache, r.conf.CheckpointKey, d.Round(time.Second), h.fails, err)
	}
	return err
}
