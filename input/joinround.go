package input

import (
	"sync"

	"github.com/redpanda-data/benthos/v4/public/service"
)

// joinRound follows the tables that one event brought into the stream (the
// start of a run, or one table discovery) until each reads the shared
// binlog windows, is done (no binlog phase), or leaves; and tells how they
// go at info level in a bounded number of lines, however many tables there
// are: a line at each tenth of its snapshots finished, one when they all
// have, and one when the tables that catch up on their own binlog have all
// joined. Each table's own steps are logged at debug level. A start in
// initial mode may snapshot a thousand tables, a discovery may find a
// thousand; a line per table and step is thousands of lines.
//
// Lines that mark the end wait for seal, the end of the event, since the
// tables of a discovery are added one by one and the first may be done
// before the last is added. A nil *joinRound does nothing.
type joinRound struct {
	log *service.Logger

	mu        sync.Mutex
	tables    map[string]*roundTable // not settled yet
	snapshots int                    // expected: tables with a snapshot to read that did not leave
	snapped   []string               // tables whose snapshot finished
	splits    int                    // read by their snapshots
	tenths    int                    // the last tenth of the snapshots logged
	caughtUp  []string               // tables that caught up and joined the windows
	sealed    bool
	snapsTold bool // the end of the snapshots was logged
}

type roundTable struct {
	snapshot bool // its snapshot is still to finish
	catchUp  bool // it catches up on its own binlog before joining
}

func newJoinRound(log *service.Logger) *joinRound {
	return &joinRound{log: log, tables: map[string]*roundTable{}}
}

// add counts a table in: with a snapshot still to read, and whether it
// catches up on its own binlog before it joins the shared windows.
func (r *joinRound) add(key string, snapshot, catchUp bool) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tables[key] = &roundTable{snapshot: snapshot, catchUp: catchUp}
	if snapshot {
		r.snapshots++
	}
}

// snapshotDone counts key's finished snapshot of splits splits.
func (r *joinRound) snapshotDone(key string, splits int) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.tables[key]
	if t == nil || !t.snapshot {
		return
	}
	t.snapshot = false
	r.snapped = append(r.snapped, key)
	r.splits += splits
	if n := len(r.snapped); n < r.snapshots {
		if tenth := n * 10 / r.snapshots; tenth > r.tenths {
			r.tenths = tenth
			r.log.Infof("Snapshots: %d of %d tables finished, %d splits so far", n, r.snapshots, r.splits)
		}
	}
	r.report()
}

// joined settles key: it reads the shared windows now, or is done.
func (r *joinRound) joined(key string) { r.settle(key, true) }

// left settles key: it left the stream (dropped, or started over as a new
// table).
func (r *joinRound) left(key string) { r.settle(key, false) }

func (r *joinRound) settle(key string, joined bool) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.tables[key]
	if t == nil {
		return
	}
	delete(r.tables, key)
	if t.snapshot {
		r.snapshots-- // it left before its snapshot finished
	}
	if joined && t.catchUp {
		r.caughtUp = append(r.caughtUp, key)
	}
	r.report()
}

// seal ends the event: no table is added any more.
func (r *joinRound) seal() {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sealed = true
	r.report()
}

// report logs the end of the snapshots and of the catch-ups once each.
func (r *joinRound) report() {
	if !r.sealed {
		return
	}
	if !r.snapsTold && len(r.snapped) > 0 && len(r.snapped) == r.snapshots {
		r.snapsTold = true
		next := ""
		for _, t := range r.tables {
			if t.catchUp {
				next = "; they catch up on their own binlog next, before joining the shared windows"
				break
			}
		}
		r.log.Infof("Snapshots finished (%d splits): %s%s", r.splits, tableList(r.snapped), next)
	}
	if len(r.tables) == 0 && len(r.caughtUp) > 0 {
		r.log.Infof("Caught up on their own binlog and joined the shared windows: %s", tableList(r.caughtUp))
		r.caughtUp = nil
	}
}

// enterRound counts key into the open round, if there is one: with a
// snapshot to read, and a catch-up on its own binlog before it joins the
// shared windows.
func (co *coordinator) enterRound(key string, snapshot, catchUp bool) {
	if co.round == nil {
		return
	}
	co.mu.Lock()
	co.rounds[key] = co.round
	co.mu.Unlock()
	co.round.add(key, snapshot, catchUp)
}

// roundOf is key's round, nil when it has none (any more).
func (co *coordinator) roundOf(key string) *joinRound {
	co.mu.Lock()
	defer co.mu.Unlock()
	return co.rounds[key]
}

// joinedRound settles key in its round: it reads the shared windows now,
// or, without a binlog phase, is done.
func (co *coordinator) joinedRound(key string) { co.takeRound(key).joined(key) }

// leaveRound settles key in its round: it left the stream.
func (co *coordinator) leaveRound(key string) { co.takeRound(key).left(key) }

func (co *coordinator) takeRound(key string) *joinRound {
	co.mu.Lock()
	defer co.mu.Unlock()
	r := co.rounds[key]
	delete(co.rounds, key)
	return r
}
