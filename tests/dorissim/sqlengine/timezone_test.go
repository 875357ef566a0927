package sqlengine

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// Instants next to the 2026 transitions: America/New_York falls back at
// 06:00Z on 2026-11-01 (01:59:59 EDT is followed by 01:00:00 EST) and
// Europe/Berlin springs forward at 01:00Z on 2026-03-29 (01:59:59 CET is
// followed by 03:00:00 CEST).
var (
	nyBeforeFallBack = time.Date(2026, 11, 1, 5, 59, 50, 0, time.UTC) // 01:59:50 EDT, epoch 1793512790
	nyAfterFallBack  = time.Date(2026, 11, 1, 6, 0, 10, 0, time.UTC)  // 01:00:10 EST
	berlinBeforeGap  = time.Date(2026, 3, 29, 0, 59, 50, 0, time.UTC) // 01:59:50 CET
	berlinAfterGap   = time.Date(2026, 3, 29, 1, 0, 10, 0, time.UTC)  // 03:00:10 CEST
)

func scalar(t *testing.T, s *Session, q string) string {
	t.Helper()
	cols, rows := mustRows(t, s, q)
	if len(rows) != 1 || len(rows[0]) != 1 {
		t.Fatalf("%s: rows %v", q, rows)
	}
	return textRows(cols, rows)[0][0]
}

func TestTimeFunctionsAtTransitions(t *testing.T) {
	clock := &testClock{now: nyBeforeFallBack}
	eng, _ := newTestEngine(t, clock)
	s := eng.NewSession("root")
	defer s.Close()
	for _, tc := range []struct {
		zone string
		at   time.Time
		now  string
	}{
		{"America/New_York", nyBeforeFallBack, "2026-11-01 01:59:50"},
		{"America/New_York", nyAfterFallBack, "2026-11-01 01:00:10"},
		{"Europe/Berlin", berlinBeforeGap, "2026-03-29 01:59:50"},
		{"Europe/Berlin", berlinAfterGap, "2026-03-29 03:00:10"},
		{"+08:00", nyAfterFallBack, "2026-11-01 14:00:10"},
	} {
		clock.Set(tc.at)
		mustExec(t, s, "SET time_zone = '"+tc.zone+"'")
		epoch := tc.at.Unix()
		checks := map[string]string{
			"SELECT NOW()":                              tc.now,
			"SELECT CURRENT_TIMESTAMP()":                tc.now,
			"SELECT CURDATE()":                          tc.now[:10],
			"SELECT FROM_UNIXTIME(" + itoa(epoch) + ")": tc.now,
			"SELECT FROM_UNIXTIME(" + itoa(epoch*1000+999) + " / 1000, '%Y-%m-%d %H:%i:%s')": tc.now,
			"SELECT UNIX_TIMESTAMP()": itoa(epoch),
			"SELECT CONVERT_TZ('" + tc.at.Format(time.DateTime) + "', '+00:00', '" + tc.zone + "')": tc.now,
		}
		for q, want := range checks {
			if got := scalar(t, s, q); got != want {
				t.Errorf("%s in %s at %s: got %s, want %s", q, tc.zone, tc.at, got, want)
			}
		}
	}
}

// TestLocalTimesAtTransitions covers the wall clock to instant direction:
// a repeated time is the earlier instant; a skipped one moves later by the
// gap (FE, java.time) for constants.
func TestLocalTimesAtTransitions(t *testing.T) {
	eng, _ := newTestEngine(t, nil)
	s := eng.NewSession("root")
	defer s.Close()
	for _, tc := range []struct {
		zone, local string
		want        time.Time
	}{
		{"America/New_York", "2026-11-01 01:59:50", nyBeforeFallBack},
		{"America/New_York", "2026-11-01 01:00:10", time.Date(2026, 11, 1, 5, 0, 10, 0, time.UTC)},
		{"America/New_York", "2026-03-08 02:30:00", time.Date(2026, 3, 8, 7, 30, 0, 0, time.UTC)},
		{"Europe/Berlin", "2026-03-29 02:30:00", time.Date(2026, 3, 29, 1, 30, 0, 0, time.UTC)},
		{"Europe/Berlin", "2026-03-29 03:00:10", berlinAfterGap},
		{"Europe/Berlin", "2026-10-25 02:30:00", time.Date(2026, 10, 25, 0, 30, 0, 0, time.UTC)},
	} {
		mustExec(t, s, "SET time_zone = '"+tc.zone+"'")
		if got := scalar(t, s, "SELECT UNIX_TIMESTAMP('"+tc.local+"')"); got != itoa(tc.want.Unix()) {
			t.Errorf("UNIX_TIMESTAMP('%s') in %s = %s, want %d", tc.local, tc.zone, got, tc.want.Unix())
		}
		q := "SELECT CONVERT_TZ('" + tc.local + "', '" + tc.zone + "', '+00:00')"
		if got := scalar(t, s, q); got != tc.want.Format(time.DateTime) {
			t.Errorf("%s = %s, want %s", q, got, tc.want.Format(time.DateTime))
		}
	}
}

func TestSetTimeZoneStandardizesAndRejects(t *testing.T) {
	eng, _ := newTestEngine(t, nil)
	s := eng.NewSession("root")
	defer s.Close()
	for in, want := range map[string]string{
		"+8:00": "+08:00", "-05:00": "-05:00", "Asia/Shanghai": "Asia/Shanghai", "UTC": "UTC", "CST": "CST",
	} {
		mustExec(t, s, "SET time_zone = '"+in+"'")
		if got := scalar(t, s, "SELECT @@time_zone"); got != want {
			t.Errorf("SET time_zone = '%s': @@time_zone = %s, want %s", in, got, want)
		}
	}
	// Doris reads CST as Asia/Shanghai, not as US Central time.
	mustExec(t, s, "SET time_zone = 'CST'")
	if got := scalar(t, s, "SELECT UNIX_TIMESTAMP('2026-01-01 08:00:00')"); got != "1767225600" {
		t.Errorf("CST is not Asia/Shanghai: %s", got)
	}
	mustExec(t, s, "SET time_zone = DEFAULT")
	if got := scalar(t, s, "SELECT @@time_zone"); got != HostTimeZone() {
		t.Errorf("SET time_zone = DEFAULT: %s, want the configured %s", got, HostTimeZone())
	}
	for _, bad := range []string{"Mars/Olympus", "+15:00", "-12:30", "nowhere", "+8"} {
		err := queryErr(t, s, "SET time_zone = '"+bad+"'")
		if err.Code != 1298 || !strings.Contains(err.Message, "Unknown or incorrect time zone: '"+bad+"'") {
			t.Errorf("SET time_zone = '%s': %d %s", bad, err.Code, err.Message)
		}
	}
}

func TestGlobalTimeZonePerEngine(t *testing.T) {
	eng, _ := newTestEngine(t, nil)
	other, _ := newTestEngine(t, nil)
	s := eng.NewSession("root")
	defer s.Close()
	mustExec(t, s, "SET GLOBAL time_zone = 'America/New_York'")
	if got := scalar(t, s, "SELECT @@time_zone"); got != "America/New_York" {
		t.Errorf("SET GLOBAL left the current session at %s", got)
	}
	fresh := eng.NewSession("root")
	defer fresh.Close()
	cols, rows := mustRows(t, fresh, "SELECT @@global.time_zone, @@time_zone")
	if got := textRows(cols, rows)[0]; got[0] != "America/New_York" || got[1] != "America/New_York" {
		t.Errorf("new session: %v", got)
	}
	if cols[0].Name != "@@global.time_zone" {
		t.Errorf("column name %q", cols[0].Name)
	}
	mustExec(t, fresh, "SET @@session.time_zone = '+01:00'")
	if got := scalar(t, fresh, "SELECT @@global.time_zone"); got != "America/New_York" {
		t.Errorf("a session SET changed the global: %s", got)
	}
	o := other.NewSession("root")
	defer o.Close()
	if got := scalar(t, o, "SELECT @@global.time_zone"); got != HostTimeZone() {
		t.Errorf("another engine's global is %s", got)
	}
}

func TestConfiguredTimeZone(t *testing.T) {
	eng, err := New(Config{Store: newStore(), TimeZone: "Europe/Berlin"})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	s := eng.NewSession("root")
	defer s.Close()
	if got := scalar(t, s, "SELECT @@time_zone"); got != "Europe/Berlin" {
		t.Errorf("@@time_zone = %s", got)
	}
	if _, err := New(Config{Store: newStore(), TimeZone: "Nowhere"}); err == nil {
		t.Error("an unknown configured zone was accepted")
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func newStore() *storage.Store { return storage.New(storage.Options{}) }

// TestColumnTimesInAGapFollowTheBE: UNIX_TIMESTAMP and CONVERT_TZ of a
// column run on the BE (cctz), which puts a skipped local time on the
// transition; the same text as a constant is folded by the FE (java.time),
// which moves it later by the gap.
func TestColumnTimesInAGapFollowTheBE(t *testing.T) {
	eng, _ := newTestEngine(t, nil)
	s := eng.NewSession("root")
	defer s.Close()
	mustExec(t, s, "CREATE DATABASE d")
	mustExec(t, s, "CREATE TABLE d.t (k INT, dt DATETIME) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 "+
		`PROPERTIES ("replication_num" = "1")`)
	mustExec(t, s, "INSERT INTO d.t VALUES (1, '2026-03-29 02:30:00')")
	mustExec(t, s, "SET time_zone = 'Europe/Berlin'")
	transition := time.Date(2026, 3, 29, 1, 0, 0, 0, time.UTC)
	cols, rows := mustRows(t, s, "SELECT UNIX_TIMESTAMP(dt), CONVERT_TZ(dt, 'Europe/Berlin', '+00:00'), "+
		"UNIX_TIMESTAMP('2026-03-29 02:30:00') FROM d.t")
	got := textRows(cols, rows)
	want := []string{itoa(transition.Unix()), "2026-03-29 01:00:00", itoa(transition.Add(30 * time.Minute).Unix())}
	if len(got) != 1 || strings.Join(got[0], "|") != strings.Join(want, "|") {
		t.Errorf("got %v, want %v", got, want)
	}
}
