package input

import (
	"slices"
	"sync"

	"github.com/redpanda-data/benthos/v4/public/service"
)

// skippedTables are the tables a pattern matched that cannot be followed,
// and why. Each is warned about once, checked again at every discovery, and
// forgotten when it is no longer listed, so that
// doris_binlog_tables{state="skipped"} counts tables that still exist.
type skippedTables struct {
	log *service.Logger
	mu  sync.Mutex
	why map[string]string
}

func newSkippedTables(log *service.Logger) *skippedTables {
	return &skippedTables{log: log, why: map[string]string{}}
}

// note records a skipped table; it reports true the first time, when the
// table is to be warned about (warn).
func (s *skippedTables) note(key, why string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, seen := s.why[key]; seen {
		return false
	}
	s.why[key] = why
	return true
}

// warn warns about the tables one listing newly skipped. An include may
// match hundreds of tables that cannot be followed (none with a row
// binlog, say), so the first listedTables are warned about with their
// reasons, the rest in one summary line, each of them with its reason at
// debug level.
func (s *skippedTables) warn(keys []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sorted := slices.Sorted(slices.Values(keys))
	for i, key := range sorted {
		if i < listedTables {
			s.log.Warnf("Skipping table %s: %s. It is checked again at each table discovery", key, s.why[key])
		} else {
			s.log.Debugf("Skipping table %s: %s. It is checked again at each table discovery", key, s.why[key])
		}
	}
	if rest := sorted[min(len(sorted), listedTables):]; len(rest) > 0 {
		s.log.Warnf("Skipping more tables that cannot be followed either, each checked again at each table discovery (why each is skipped is logged at debug level): %s", tableList(rest))
	}
}

// clear forgets a table that can be followed now.
func (s *skippedTables) clear(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.why, key)
}

// forgetUnlisted drops the skipped tables that are not listed any more.
func (s *skippedTables) forgetUnlisted(listed map[string]bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for key := range s.why {
		if !listed[key] {
			delete(s.why, key)
		}
	}
}

func (s *skippedTables) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.why)
}
