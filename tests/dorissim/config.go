// Package dorissim is a Doris 5.0 simulator for tests: FE HTTP, MySQL, FE and
// BE Arrow Flight SQL listeners over an in-memory store with Row Binlog.
package dorissim

import (
	"crypto/tls"
	"encoding/json"
	"fmt"
	"time"
)

// Config configures Start.
type Config struct {
	Host                                          string // default 127.0.0.1
	HTTPPort, MySQLPort, FlightPort, BEFlightPort int    // 0 = free port
	User, Password                                string // default user root
	VisibleWaitTimeout                            time.Duration
	TLS                                           *tls.Config // nil = plaintext; else every listener serves TLS
	Clock                                         func() time.Time
	// ClockStart, when set, is the instant the simulator clock shows at
	// Start; from there it runs at normal speed. It puts a black-box test or
	// a demo on a DST transition. Exclusive with Clock.
	ClockStart time.Time
	// TimeZone is the FE's global time_zone (an IANA name such as
	// America/New_York, or an offset such as +08:00); default: the host's
	// zone ID, as a Doris FE starts (sqlengine.HostTimeZone).
	TimeZone string
	Demo     bool
	Logf     func(format string, args ...any)
	// FlightBatchRows is the most rows per Arrow record batch a DoGet
	// sends (default 4096), so that a test can make a small result come in
	// several batches, as a large one does from a BE.
	FlightBatchRows int

	// The FE's connection limits, enforced over MySQL connections and
	// Arrow Flight SQL sessions together (docs/contracts.md §4); zero is
	// Doris's default. QEMaxConnection is qe_max_connection (1024);
	// ArrowFlightMaxConnections is arrow_flight_max_connections, the Flight
	// sessions' share of it (half of QEMaxConnection, never more than it);
	// MaxUserConnections is the user's max_user_connections until SET
	// PROPERTY changes it (100, at most 10000); WaitTimeout ends a
	// connection or session idle for longer (wait_timeout, 8h).
	QEMaxConnection           int
	ArrowFlightMaxConnections int
	MaxUserConnections        int
	WaitTimeout               time.Duration

	// PreTimeTravelFE starts the FE as one from before OLAP time travel
	// (Doris before apache/doris#64776): it parses FOR VERSION AS OF and
	// ignores it on OLAP tables, reading the current data, and no table has
	// __DORIS_COMMIT_TSO_COL__ (docs/time-travel.md §1.10). The fault
	// "pre_time_travel_fe" switches it while the simulator runs.
	PreTimeTravelFE bool

	// With TLS, BE Flight locations are advertised as grpc+tcp:// while the
	// BE still serves TLS, as a proxy or be.conf public_host setup may do.
	AdvertiseBEFlightTCP bool
	// With TLS, the BE Flight listener serves plaintext and is advertised
	// as grpc+tcp://, while FE HTTP, FE Flight and MySQL serve TLS.
	PlaintextBEFlight bool
}

// Faults are injected failures. Counters apply to the next N calls.
type Faults struct {
	FailGetFlightInfo       int           `json:"fail_get_flight_info"`
	FailDoGet               int           `json:"fail_do_get"`
	CutDoGetAfterRows       int           `json:"cut_do_get_after_rows"` // the next DoGet stream that reaches N rows is cut there
	TSOErrors               int           `json:"tso_errors"`            // next N /api/tso answer 500
	Latency                 time.Duration `json:"-"`                     // JSON: "latency_ms"
	IncrVisibleWaitTimeouts int           `json:"incr_visible_wait_timeouts"`
	IncrMemoryPressure      int           `json:"incr_memory_pressure"`  // next N @incr: cancelled by the BE's memory GC ("Process memory not enough")
	FailPartitionsReads     int           `json:"fail_partitions_reads"` // next N reads of information_schema.partitions fail
	Refuse                  string        `json:"refuse"`                // "http" | "mysql" | "flight" | "be_flight"
	RefuseFor               time.Duration `json:"-"`                     // JSON: "refuse_seconds"
	// Stream load faults, each for the next N BE stream loads (see docs/stream-load-sim.md):
	StreamLoadHTTPErrors      int `json:"stream_load_http_errors"`      // HTTP 500 before anything is loaded
	StreamLoadLostAnswers     int `json:"stream_load_lost_answers"`     // committed, then the connection is dropped unanswered
	StreamLoadPublishTimeouts int `json:"stream_load_publish_timeouts"` // committed, answered "Publish Timeout"
	// PreTimeTravelFE, when set, switches the FE to one from before OLAP
	// time travel (true) or back to Doris 5.0 (false) until changed again;
	// clearing the faults restores Config.PreTimeTravelFE.
	PreTimeTravelFE *bool `json:"pre_time_travel_fe,omitempty"`
}

type faultsJSON struct {
	FailGetFlightInfo       int     `json:"fail_get_flight_info"`
	FailDoGet               int     `json:"fail_do_get"`
	CutDoGetAfterRows       int     `json:"cut_do_get_after_rows"`
	TSOErrors               int     `json:"tso_errors"`
	LatencyMs               int64   `json:"latency_ms"`
	IncrVisibleWaitTimeouts int     `json:"incr_visible_wait_timeouts"`
	IncrMemoryPressure      int     `json:"incr_memory_pressure"`
	FailPartitionsReads     int     `json:"fail_partitions_reads"`
	Refuse                  string  `json:"refuse"`
	RefuseSeconds           float64 `json:"refuse_seconds"`
	StreamLoadHTTPErrors    int     `json:"stream_load_http_errors"`
	StreamLoadLostAnswers   int     `json:"stream_load_lost_answers"`
	StreamLoadPublishTmouts int     `json:"stream_load_publish_timeouts"`
	PreTimeTravelFE         *bool   `json:"pre_time_travel_fe,omitempty"`
}

// MarshalJSON encodes durations as latency_ms and refuse_seconds.
func (f Faults) MarshalJSON() ([]byte, error) {
	return json.Marshal(faultsJSON{
		FailGetFlightInfo: f.FailGetFlightInfo, FailDoGet: f.FailDoGet, CutDoGetAfterRows: f.CutDoGetAfterRows,
		TSOErrors: f.TSOErrors, LatencyMs: f.Latency.Milliseconds(), IncrVisibleWaitTimeouts: f.IncrVisibleWaitTimeouts,
		IncrMemoryPressure: f.IncrMemoryPressure, FailPartitionsReads: f.FailPartitionsReads, Refuse: f.Refuse, RefuseSeconds: f.RefuseFor.Seconds(),
		StreamLoadHTTPErrors: f.StreamLoadHTTPErrors, StreamLoadLostAnswers: f.StreamLoadLostAnswers,
		StreamLoadPublishTmouts: f.StreamLoadPublishTimeouts, PreTimeTravelFE: f.PreTimeTravelFE,
	})
}

// UnmarshalJSON decodes the /api/_sim/faults body.
func (f *Faults) UnmarshalJSON(b []byte) error {
	var j faultsJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*f = Faults{
		FailGetFlightInfo: j.FailGetFlightInfo, FailDoGet: j.FailDoGet, CutDoGetAfterRows: j.CutDoGetAfterRows,
		TSOErrors: j.TSOErrors, Latency: time.Duration(j.LatencyMs) * time.Millisecond,
		IncrVisibleWaitTimeouts: j.IncrVisibleWaitTimeouts, IncrMemoryPressure: j.IncrMemoryPressure, Refuse: j.Refuse,
		FailPartitionsReads:  j.FailPartitionsReads,
		RefuseFor:            time.Duration(j.RefuseSeconds * float64(time.Second)),
		StreamLoadHTTPErrors: j.StreamLoadHTTPErrors, StreamLoadLostAnswers: j.StreamLoadLostAnswers,
		StreamLoadPublishTimeouts: j.StreamLoadPublishTmouts, PreTimeTravelFE: j.PreTimeTravelFE,
	}
	return f.validate()
}

func (f Faults) validate() error {
	switch f.Refuse {
	case "", listenerHTTP, listenerMySQL, listenerFlight, listenerBEFlight:
	default:
		return fmt.Errorf("faults: refuse must be one of http, mysql, flight, be_flight; got %q", f.Refuse)
	}
	if f.Refuse != "" && f.RefuseFor <= 0 {
		return fmt.Errorf("faults: refuse %s needs refuse_seconds > 0", f.Refuse)
	}
	if f.FailGetFlightInfo < 0 || f.FailDoGet < 0 || f.CutDoGetAfterRows < 0 || f.TSOErrors < 0 ||
		f.Latency < 0 || f.IncrVisibleWaitTimeouts < 0 || f.IncrMemoryPressure < 0 || f.FailPartitionsReads < 0 ||
		f.StreamLoadHTTPErrors < 0 || f.StreamLoadLostAnswers < 0 || f.StreamLoadPublishTimeouts < 0 {
		return fmt.Errorf("faults: counts and latency must not be negative")
	}
	return nil
}

const (
	listenerHTTP     = "http"
	listenerMySQL    = "mysql"
	listenerFlight   = "flight"
	listenerBEFlight = "be_flight"
)
