package flight

import (
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
)

type stepClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *stepClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *stepClock) Set(t time.Time) {
	c.mu.Lock()
	c.now = t
	c.mu.Unlock()
}

// nyFE is a simulated FE in America/New_York with one row committed at
// 01:59:50 EDT (05:59:50Z) and one at 01:00:10 EST (06:00:10Z), the second
// pass of the repeated hour.
func nyFE(t *testing.T) (*dorissim.Server, Config) {
	t.Helper()
	clock := &stepClock{now: time.Date(2026, 11, 1, 5, 0, 0, 0, time.UTC)}
	s, err := dorissim.Start(testCtx(t), dorissim.Config{User: testUser, Password: testPass, Clock: clock.Now,
		TimeZone: "America/New_York"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	for _, stmt := range []string{"CREATE DATABASE tz",
		"CREATE TABLE tz.t (id BIGINT) UNIQUE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1 PROPERTIES (" +
			`"enable_unique_key_merge_on_write" = "true", "binlog.enable" = "true", "binlog.format" = "ROW", ` +
			`"binlog.need_historical_value" = "true")`} {
		if err := s.Exec(testCtx(t), stmt); err != nil {
			t.Fatal(err)
		}
	}
	for id, at := range []time.Time{time.Date(2026, 11, 1, 5, 59, 50, 0, time.UTC), time.Date(2026, 11, 1, 6, 0, 10, 0, time.UTC)} {
		clock.Set(at)
		if err := s.Exec(testCtx(t), fmt.Sprintf("INSERT INTO tz.t VALUES (%d)", id+1)); err != nil {
			t.Fatal(err)
		}
	}
	clock.Set(time.Date(2026, 11, 1, 6, 30, 0, 0, time.UTC))
	return s, Config{Addr: s.FlightAddr(), Username: testUser, Password: testPass, ConnectTimeout: 5 * time.Second}
}

func incrIDs(t *testing.T, c *Client, start, end string) []int64 {
	t.Helper()
	var ids []int64
	q := "SELECT id FROM tz.t@incr('incrementType' = 'DETAIL', 'startTimestamp' = '" + start +
		"', 'endTimestamp' = '" + end + "') ORDER BY id"
	err := c.Query(testCtx(t), q, func(rec arrow.RecordBatch) error {
		col := rec.Column(0).(*array.Int64)
		for i := 0; i < col.Len(); i++ {
			ids = append(ids, col.Value(i))
		}
		return nil
	})
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return ids
}

// TestUseUTCWindowsAcrossFallBack shows why the input sets UTC: in the FE's
// zone the window [01:00:05, 01:00:15) means the EDT pass and misses the row
// committed at 01:00:10 EST; in UTC the bounds name one instant each.
func TestUseUTCWindowsAcrossFallBack(t *testing.T) {
	_, cfg := nyFE(t)
	plain, err := Dial(testCtx(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if z, err := SessionTimeZone(testCtx(t), plain); err != nil || z != "America/New_York" {
		t.Fatalf("default session zone %q, %v", z, err)
	}
	if ids := incrIDs(t, plain, "2026-11-01 01:00:05", "2026-11-01 01:00:15"); len(ids) != 0 {
		t.Fatalf("FE-zone window read %v; the repeated hour should resolve to EDT", ids)
	}
	utc, err := DialUTC(testCtx(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer utc.Close()
	if z, err := SessionTimeZone(testCtx(t), utc); err != nil || z != UTCZone {
		t.Fatalf("UTC session zone %q, %v", z, err)
	}
	if ids := incrIDs(t, utc, "2026-11-01 06:00:05", "2026-11-01 06:00:15"); !reflect.DeepEqual(ids, []int64{2}) {
		t.Errorf("UTC window read %v, want [2]", ids)
	}
	if ids := incrIDs(t, utc, "2026-11-01 05:59:45", "2026-11-01 06:00:15"); !reflect.DeepEqual(ids, []int64{1, 2}) {
		t.Errorf("UTC window across the fall-back read %v, want [1 2]", ids)
	}
	// The other session keeps its own zone: variables live per token.
	if z, err := SessionTimeZone(testCtx(t), plain); err != nil || z != "America/New_York" {
		t.Errorf("the plain session changed to %q, %v", z, err)
	}
}

// TestUseUTCSurvivesANewSession ends the client's session under it, as an
// FE does on wait_timeout, KILL or another CloseSession of its token; the
// re-handshake opens a session in the global zone, and the replayed SET
// puts it back in UTC.
func TestUseUTCSurvivesANewSession(t *testing.T) {
	_, cfg := nyFE(t)
	c, err := DialUTC(testCtx(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.mu.Lock()
	before := c.token
	c.mu.Unlock()
	raw, err := flightsql.NewClient(cfg.Addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	bearer := metadata.AppendToOutgoingContext(testCtx(t), "authorization", before)
	if _, err := raw.CloseSession(bearer, &flight.CloseSessionRequest{}); err != nil {
		t.Fatal(err)
	}
	if z, err := SessionTimeZone(testCtx(t), c); err != nil || z != UTCZone {
		t.Fatalf("after re-authentication the session zone is %q, %v", z, err)
	}
	c.mu.Lock()
	after := c.token
	c.mu.Unlock()
	if after == before {
		t.Fatal("the token was not replaced; the test did not exercise a new session")
	}
}

func TestDialUTCFailsClearly(t *testing.T) {
	_, cfg := nyFE(t)
	cfg.Password = "wrong"
	if _, err := DialUTC(testCtx(t), cfg); err == nil || !IsUnauthenticated(err) {
		t.Errorf("DialUTC with a wrong password: %v", err)
	}
}
