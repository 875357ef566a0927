package storage

import (
	"sort"
	"sync"
	"time"
)

// Options configure a Store.
type Options struct {
	Clock              func() time.Time // default time.Now
	VisibleWaitTimeout time.Duration    // default 5s
	LabelKeep          time.Duration    // how long finished load labels are kept; default DefaultLabelKeep
	PrecommitTimeout   time.Duration    // 2PC pre-committed txns abort after this; default DefaultPrecommitTimeout
}

// firstTabletID is where the global tablet id counter starts; ids are never
// reused. Partition ids have their own counter so that adding partitions
// leaves the tablet ids of unpartitioned tables as they were.
const (
	firstTabletID    = 10001
	firstPartitionID = 1000001
)

// Store is the simulator's storage: databases, tables, tablets, the TSO
// oracle, transactions and the Row Binlog. One RWMutex guards all table
// state; committed rows and binlog records are immutable so readers can keep
// them after releasing the lock.
type Store struct {
	opts   Options
	oracle *oracle

	mu         sync.RWMutex
	dbs        map[string]*database
	nextTablet int64
	// nextPartition is the next partition id.
	nextPartition int64
	nextTxnID     int64
	// txnEnded is closed (and replaced) whenever a writing transaction ends,
	// waking @incr visible waits.
	txnEnded   chan struct{}
	forced5101 int
	// forcedPressure is how many more @incr queries the BE's memory GC
	// cancels (incr_memory.go).
	forcedPressure int
	queries        int64                   // @incr queries cancelled so far, for their query ids
	holds          map[*table]*PublishHold // tables whose publishes are held (publish.go)
	loads          map[int64]*loadEntry    // load txns by id, for _stream_load_2pc
	partitions     partitionsState         // information_schema.partitions knobs (partition_versions.go)
	commitTSOs     sync.Map                // *table -> *commitIndex (timetravel_tso.go)

	groupMu sync.Mutex
	groups  map[string]*groupBatch // open group commit batch per db\x00table
}

type database struct {
	name   string
	tables map[string]*table
	labels map[string]*loadEntry // stream load label -> its latest txn
	// lastSweepMs is when expired labels were last dropped.
	lastSweepMs int64
}

// New creates an empty Store.
func New(opts Options) *Store {
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.VisibleWaitTimeout <= 0 {
		opts.VisibleWaitTimeout = 5 * time.Second
	}
	if opts.LabelKeep <= 0 {
		opts.LabelKeep = DefaultLabelKeep
	}
	if opts.PrecommitTimeout <= 0 {
		opts.PrecommitTimeout = DefaultPrecommitTimeout
	}
	return &Store{
		opts:          opts,
		oracle:        &oracle{clock: opts.Clock},
		dbs:           map[string]*database{},
		nextTablet:    firstTabletID,
		nextPartition: firstPartitionID,
		nextTxnID:     1,
		txnEnded:      make(chan struct{}),
		loads:         map[int64]*loadEntry{},
		groups:        map[string]*groupBatch{},
	}
}

// CurrentTSO returns the current TSO without allocating one; it is never
// behind the Store's clock.
func (s *Store) CurrentTSO() TSO { return s.oracle.current() }

// CommittedTSO returns the TSO of the latest commit (zero before any).
func (s *Store) CommittedTSO() TSO { return s.oracle.committed() }

// CreateDatabase creates a database.
func (s *Store) CreateDatabase(name string, ifNotExists bool) error {
	if name == "" {
		return errorf("Database name cannot be empty")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.dbs[name]; ok {
		if ifNotExists {
			return nil
		}
		return &Error{Code: CodeDBExists, Message: "Can't create database '" + name + "'; database exists"}
	}
	s.dbs[name] = &database{name: name, tables: map[string]*table{}, labels: map[string]*loadEntry{}}
	return nil
}

// DropDatabase drops a database and its tables.
func (s *Store) DropDatabase(name string, ifExists bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.dbs[name]; !ok {
		if ifExists {
			return nil
		}
		return &Error{Code: 1008, Message: "Can't drop database '" + name + "'; database doesn't exist"}
	}
	delete(s.dbs, name)
	return nil
}

// Databases lists database names in ascending order.
func (s *Store) Databases() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]string, 0, len(s.dbs))
	for n := range s.dbs {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Tables lists a database's table names in ascending order.
func (s *Store) Tables(db string) ([]string, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	d, ok := s.dbs[db]
	if !ok {
		return nil, errUnknownDB(db)
	}
	out := make([]string, 0, len(d.tables))
	for n := range d.tables {
		out = append(out, n)
	}
	sort.Strings(out)
	return out, nil
}

// lookup finds a table; callers hold s.mu.
func (s *Store) lookup(db, name string) (*table, error) {
	d, ok := s.dbs[db]
	if !ok {
		return nil, errUnknownDB(db)
	}
	t, ok := d.tables[name]
	if !ok {
		return nil, errUnknownTable(db, name)
	}
	return t, nil
}

// signalTxnEnded wakes visible waiters; callers hold s.mu for writing.
func (s *Store) signalTxnEnded() {
	close(s.txnEnded)
	s.txnEnded = make(chan struct{})
}
