package flightsrv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

// pending is an executed statement whose rows wait for a DoGet.
type pending struct {
	res    Result // nil for FE-answered statements (SET, USE, ...)
	onFE   bool   // served by the FE's own DoGet rather than the BE's
	cols   []colSpec
	schema *arrow.Schema
	cancel context.CancelFunc
	timer  *time.Timer
}

// release frees the engine result of a ticket that will not be streamed.
func (p *pending) release() {
	if p.res != nil {
		p.res.Close()
	}
	p.cancel()
}

// tickets maps statement handles to pending results. A handle is taken at
// most once (Doris tickets are single-use), and results never fetched are
// released after ttl so that abandoned queries do not pin engine resources.
type tickets struct {
	mu   sync.Mutex
	ttl  time.Duration
	logf func(format string, args ...any)
	byID map[string]*pending
}

func newTickets(ttl time.Duration, logf func(string, ...any)) *tickets {
	return &tickets{ttl: ttl, logf: logf, byID: map[string]*pending{}}
}

func (t *tickets) put(p *pending) string {
	id := newID()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.byID[id] = p
	p.timer = time.AfterFunc(t.ttl, func() {
		if q := t.take(id); q != nil {
			t.logf("flight: released result of ticket %s, not fetched within %s", id, t.ttl)
			q.release()
		}
	})
	return id
}

// take removes and returns the pending result, or nil when the handle is
// unknown, already fetched or expired.
func (t *tickets) take(id string) *pending {
	return t.takeOn(id, nil)
}

// takeOn is take restricted to tickets served by the FE (onFE) or the BE, so
// that a ticket presented to the wrong server stays valid.
func (t *tickets) takeOn(id string, onFE *bool) *pending {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.byID[id]
	if p == nil || (onFE != nil && p.onFE != *onFE) {
		return nil
	}
	delete(t.byID, id)
	p.timer.Stop()
	return p
}

func (t *tickets) len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.byID)
}

func (t *tickets) closeAll() {
	t.mu.Lock()
	all := t.byID
	t.byID = map[string]*pending{}
	t.mu.Unlock()
	for _, p := range all {
		p.timer.Stop()
		p.release()
	}
}

func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
