package dorissim

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/feapi"
)

// faultState holds the live faults; it implements flightsrv.Hooks and
// feapi.Hooks.
type faultState struct {
	mu       sync.Mutex
	failInfo int
	failGet  int
	cutRows  int64
	cutSet   bool
	tsoErrs  int
	latency  time.Duration
	// loadFaults are the pending stream load faults, by feapi.LoadFault.
	loadFaults map[string]int
	// act performs the one-shot faults (refuse, visible-wait timeouts).
	act func(f Faults)
}

func (s *faultState) add(f Faults) {
	s.mu.Lock()
	s.failInfo += f.FailGetFlightInfo
	s.failGet += f.FailDoGet
	if f.CutDoGetAfterRows > 0 {
		s.cutRows, s.cutSet = int64(f.CutDoGetAfterRows), true
	}
	s.tsoErrs += f.TSOErrors
	if s.loadFaults == nil {
		s.loadFaults = map[string]int{}
	}
	s.loadFaults[feapi.LoadFaultHTTPError] += f.StreamLoadHTTPErrors
	s.loadFaults[feapi.LoadFaultLostAnswer] += f.StreamLoadLostAnswers
	s.loadFaults[feapi.LoadFaultPublishTimeout] += f.StreamLoadPublishTimeouts
	if f.Latency > 0 {
		s.latency = f.Latency
	}
	s.mu.Unlock()
	s.act(f)
}

func (s *faultState) clear() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failInfo, s.failGet, s.cutRows, s.cutSet, s.tsoErrs, s.latency = 0, 0, 0, false, 0, 0
	s.loadFaults = nil
}

// TakeLoadFault consumes one pending stream load fault of kind.
func (s *faultState) TakeLoadFault(kind string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.loadFaults[kind] > 0 {
		s.loadFaults[kind]--
		return true
	}
	return false
}

func (s *faultState) Latency() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.latency
}

func take(mu *sync.Mutex, n *int) bool {
	mu.Lock()
	defer mu.Unlock()
	if *n > 0 {
		*n--
		return true
	}
	return false
}

func (s *faultState) TakeFailGetFlightInfo() bool { return take(&s.mu, &s.failInfo) }
func (s *faultState) TakeFailDoGet() bool         { return take(&s.mu, &s.failGet) }
func (s *faultState) TakeTSOError() bool          { return take(&s.mu, &s.tsoErrs) }

func (s *faultState) TakeCutDoGet() (int64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ok := s.cutSet
	s.cutSet = false
	return s.cutRows, ok
}

func (s *faultState) RearmCutDoGet(n int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.cutSet {
		s.cutRows, s.cutSet = n, true
	}
}

// faultHooks adapts faultState to feapi.Hooks (JSON in, clear).
type faultHooks struct {
	*faultState
	clearAll func()
}

func (h faultHooks) ApplyFaults(body []byte) error {
	var f Faults
	if err := json.Unmarshal(body, &f); err != nil {
		return err
	}
	h.add(f)
	return nil
}

func (h faultHooks) ClearFaults() { h.clearAll() }
