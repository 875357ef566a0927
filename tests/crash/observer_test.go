package crash

import (
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// observer polls the stored checkpoint while runs go on and records each
// table's binlog start, which only a snapshot-phase entry shows: the shared
// chain's start for a table that started with it, the table's own start
// for one that joined later.
type observer struct {
	state func() *checkpoint.State // the stored checkpoint now

	mu     sync.Mutex
	starts map[string]map[string]bool // table (without db) -> binlog starts seen
	stop   chan struct{}
	done   chan struct{}
}

func startObserver(state func() *checkpoint.State) *observer {
	o := &observer{state: state, starts: map[string]map[string]bool{},
		stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(o.done)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			o.observe()
			select {
			case <-o.stop:
				return
			case <-tick.C:
			}
		}
	}()
	return o
}

// observe records the binlog starts stored now.
func (o *observer) observe() {
	st := o.state()
	if st == nil || st.Stream == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for key, t := range st.Tables {
		if t.Phase != checkpoint.PhaseSnapshot {
			continue
		}
		start := st.Stream.Start.String()
		if !t.Start.IsZero() {
			start = t.Start.String()
		}
		tbl := strings.TrimPrefix(key, db+".")
		if o.starts[tbl] == nil {
			o.starts[tbl] = map[string]bool{}
		}
		o.starts[tbl][start] = true
	}
}

func (o *observer) close() {
	close(o.stop)
	<-o.done
}

// binlogStarts lists the distinct binlog starts seen for table, sorted.
func (o *observer) binlogStarts(table string) []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []string
	for s := range o.starts[table] {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}
