package crash

import (
	"sort"
	"sync"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// observer polls the stored checkpoints while runs go on and records each
// table's stream start, which only snapshot-phase checkpoints carry.
type observer struct {
	cacheDir string
	db       string
	tables   []string

	mu     sync.Mutex
	starts map[string]map[string]bool // table -> stream starts seen
	stop   chan struct{}
	done   chan struct{}
}

func startObserver(cacheDir, db string, tables []string) *observer {
	o := &observer{cacheDir: cacheDir, db: db, tables: tables, starts: map[string]map[string]bool{},
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

// observe records the stream starts stored now.
func (o *observer) observe() {
	for _, tbl := range o.tables {
		st := storedState(o.cacheDir, o.db, tbl)
		if phaseOf(st, tbl) != checkpoint.PhaseSnapshot || st.Stream == nil {
			continue
		}
		o.mu.Lock()
		if o.starts[tbl] == nil {
			o.starts[tbl] = map[string]bool{}
		}
		o.starts[tbl][st.Stream.Start] = true
		o.mu.Unlock()
	}
}

func (o *observer) close() {
	close(o.stop)
	<-o.done
}

// streamStarts lists the distinct stream starts seen for table, sorted.
func (o *observer) streamStarts(table string) []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []string
	for s := range o.starts[table] {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}
