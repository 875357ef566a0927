package dorissim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The 2026 transitions: America/New_York falls back at 06:00Z on 11-01
// (01:59:59 EDT, then 01:00:00 EST) and springs forward at 07:00Z on 03-08;
// Europe/Berlin springs forward at 01:00Z on 03-29 (01:59:59 CET, then
// 03:00:00 CEST) and falls back at 01:00Z on 10-25.
func utcAt(s string) time.Time {
	t, err := time.Parse(time.DateTime, s)
	if err != nil {
		panic(err)
	}
	return t
}

// statementText runs stmt through the FE statement API (a fresh session per
// request, in the global time_zone) and renders each cell as text.
func statementText(t *testing.T, s *Server, stmt string) [][]string {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"stmt": stmt})
	_, data := httpDo(t, s, "POST", "/api/query/default_cluster/information_schema", string(body), nil)
	var env struct {
		Code int
		Msg  string
		Data struct{ Data [][]any }
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&env); err != nil || env.Code != 0 {
		t.Fatalf("statement %s: %s (%v)", stmt, data, err)
	}
	out := make([][]string, len(env.Data.Data))
	for i, row := range env.Data.Data {
		for _, v := range row {
			out[i] = append(out[i], fmt.Sprint(v))
		}
	}
	return out
}

// flightWall renders Arrow's zoneless timestamps (2026-11-01T01:59:50) the
// way the other protocols show DATETIME.
func flightWall(rows [][]string) [][]string {
	for _, r := range rows {
		for i, c := range r {
			if len(c) == len(time.DateTime) && c[10] == 'T' {
				r[i] = c[:10] + " " + c[11:]
			}
		}
	}
	return rows
}

func tsoPhysicalMs(t *testing.T, s *Server) int64 {
	t.Helper()
	_, data := httpDo(t, s, "GET", "/api/tso", "", nil)
	var env struct {
		Data map[string]int64
	}
	if err := json.Unmarshal(data, &env); err != nil {
		t.Fatalf("tso %s: %v", data, err)
	}
	return env.Data["current_tso_physical_time"]
}

// TestAcceptanceTimeFunctionsAtTransitions checks that NOW(), FROM_UNIXTIME,
// UNIX_TIMESTAMP, CONVERT_TZ and /api/tso agree to the second on both sides
// of the New York fall-back and the Berlin spring-forward, over MySQL, the
// statement API and Flight. Before the fix FROM_UNIXTIME(1793512790) in New
// York read 00:59:50 (EST) instead of 01:59:50 (EDT).
func TestAcceptanceTimeFunctionsAtTransitions(t *testing.T) {
	clock := newFakeClock(utcAt("2026-03-29 00:59:50"))
	s := startSim(t, Config{Clock: clock.Now, TimeZone: "America/New_York"})
	conn := mysqlConn(t, s)
	fs := newFlightSession(t, s)
	for _, tc := range []struct {
		zone, utc, wall string
		// repeated: the wall time's second occurrence, which UNIX_TIMESTAMP
		// maps to the first (one hour earlier), as Doris does.
		repeated bool
	}{
		{"Europe/Berlin", "2026-03-29 00:59:50", "2026-03-29 01:59:50", false},
		{"Europe/Berlin", "2026-03-29 01:00:10", "2026-03-29 03:00:10", false},
		{"America/New_York", "2026-11-01 05:59:50", "2026-11-01 01:59:50", false},
		{"America/New_York", "2026-11-01 06:00:10", "2026-11-01 01:00:10", true},
	} {
		at := utcAt(tc.utc)
		clock.Set(at)
		epoch := at.Unix()
		back := epoch
		if tc.repeated {
			back -= 3600
		}
		tso := tsoPhysicalMs(t, s)
		if tso != at.UnixMilli() {
			t.Fatalf("/api/tso at %s: %d, want %d", tc.utc, tso, at.UnixMilli())
		}
		q := fmt.Sprintf("SELECT NOW(), FROM_UNIXTIME(%d), FROM_UNIXTIME(%d / 1000, '%%Y-%%m-%%d %%H:%%i:%%s'), "+
			"UNIX_TIMESTAMP(), UNIX_TIMESTAMP('%s'), CONVERT_TZ('%s', '+00:00', '%s'), @@time_zone",
			epoch, tso+999, tc.wall, tc.utc, tc.zone)
		want := []string{tc.wall, tc.wall, tc.wall, strconv.FormatInt(epoch, 10), strconv.FormatInt(back, 10), tc.wall, tc.zone}
		set := "SET time_zone = '" + tc.zone + "'"
		if _, err := conn.ExecContext(testCtx(t), set); err != nil {
			t.Fatal(err)
		}
		if got, err := mysqlText(testCtx(t), conn, q); err != nil || !equalRows(got, [][]string{want}) {
			t.Errorf("mysql at %s:\n got %v (err %v)\nwant %v", tc.utc, got, err, want)
		}
		if err := fs.exec(set); err != nil {
			t.Fatal(err)
		}
		if got, err := fs.text(q); err != nil || !equalRows(flightWall(got), [][]string{want}) {
			t.Errorf("flight at %s:\n got %v (err %v)\nwant %v", tc.utc, got, err, want)
		}
		// The statement API runs in the global zone.
		if _, err := conn.ExecContext(testCtx(t), "SET GLOBAL time_zone = '"+tc.zone+"'"); err != nil {
			t.Fatal(err)
		}
		if got := statementText(t, s, q); !equalRows(got, [][]string{want}) {
			t.Errorf("statement API at %s:\n got %v\nwant %v", tc.utc, got, want)
		}
	}
}

// TestAcceptanceIncrBoundsAtTransitions checks that @incr bounds are read in
// the session zone as the FE reads them (LocalDateTime.atZone): a repeated
// local time is its first occurrence, and a time in a gap moves later by the
// gap. Go's own parse disagreed on New York's gap and Berlin's repeated hour.
func TestAcceptanceIncrBoundsAtTransitions(t *testing.T) {
	clock := newFakeClock(utcAt("2026-03-01 00:00:00"))
	s := startSim(t, Config{Clock: clock.Now})
	mustExecAll(t, s, "CREATE DATABASE tz",
		"CREATE TABLE tz.t (id BIGINT, at VARCHAR(24)) UNIQUE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 2 "+
			`PROPERTIES ("enable_unique_key_merge_on_write" = "true", "binlog.enable" = "true", "binlog.format" = "ROW", `+
			`"binlog.need_historical_value" = "true", "binlog.ttl_seconds" = "31536000")`)
	commits := []string{
		"2026-03-08 06:59:50", // 1: New York 01:59:50 EST, before the gap
		"2026-03-08 07:00:10", // 2: 03:00:10 EDT, after it
		"2026-03-29 00:59:50", // 3: Berlin 01:59:50 CET, before the gap
		"2026-03-29 01:00:10", // 4: 03:00:10 CEST, after it
		"2026-10-25 00:30:00", // 5: Berlin 02:30 CEST, first pass of the repeated hour
		"2026-10-25 01:30:00", // 6: Berlin 02:30 CET, second pass
		"2026-11-01 05:59:50", // 7: New York 01:59:50 EDT, first pass
		"2026-11-01 06:00:10", // 8: New York 01:00:10 EST, second pass
	}
	for i, c := range commits {
		clock.Set(utcAt(c))
		mustExecAll(t, s, fmt.Sprintf("INSERT INTO tz.t VALUES (%d, '%s')", i+1, c))
	}
	clock.Set(utcAt("2026-11-01 08:00:00"))
	conn := mysqlConn(t, s)
	fs := newFlightSession(t, s)
	for _, tc := range []struct {
		zone, start, end string
		ids              string
	}{
		// 02:30 does not exist in New York on 03-08: it is read as 03:30 EDT.
		{"America/New_York", "2026-03-08 01:59:55", "2026-03-08 02:30:00", "2"},
		// In Berlin on 03-29, 02:30 is 03:30 CEST (01:30Z).
		{"Europe/Berlin", "2026-03-29 01:59:55", "2026-03-29 02:30:00", "4"},
		// 02:30 in Berlin on 10-25 is its first pass (CEST, 00:30Z).
		{"Europe/Berlin", "2026-10-25 02:30:00", "2026-10-25 02:30:01", "5"},
		// 01:00:05 in New York on 11-01 is EDT (05:00:05Z): the window up to
		// 01:59:55 holds the first pass only.
		{"America/New_York", "2026-11-01 01:00:05", "2026-11-01 01:59:55", "7"},
		{"America/New_York", "2026-11-01 01:59:55", "2026-11-01 02:00:00", "8"},
	} {
		q := fmt.Sprintf("SELECT id FROM tz.t@incr('incrementType' = 'DETAIL', 'startTimestamp' = '%s', "+
			"'endTimestamp' = '%s') ORDER BY id", tc.start, tc.end)
		want := [][]string{}
		for _, id := range strings.Fields(tc.ids) {
			want = append(want, []string{id})
		}
		set := "SET time_zone = '" + tc.zone + "'"
		if _, err := conn.ExecContext(testCtx(t), set); err != nil {
			t.Fatal(err)
		}
		if got, err := mysqlText(testCtx(t), conn, q); err != nil || !equalRows(got, want) {
			t.Errorf("mysql %s [%s, %s): got %v (err %v), want %v", tc.zone, tc.start, tc.end, got, err, want)
		}
		if err := fs.exec(set); err != nil {
			t.Fatal(err)
		}
		if got, err := fs.text(q); err != nil || !equalRows(got, want) {
			t.Errorf("flight %s [%s, %s): got %v (err %v), want %v", tc.zone, tc.start, tc.end, got, err, want)
		}
	}
}

// TestAcceptanceGlobalTimeZone checks the FE's global time_zone: configured
// at start, changed by SET GLOBAL for new sessions (and the one that ran
// it), while an open Flight token keeps the zone it started with.
func TestAcceptanceGlobalTimeZone(t *testing.T) {
	s := startSim(t, Config{TimeZone: "America/New_York"})
	q := "SELECT @@time_zone, @@global.time_zone"
	ny := [][]string{{"America/New_York", "America/New_York"}}
	if got := statementText(t, s, q); !equalRows(got, ny) {
		t.Errorf("statement API %v, want %v", got, ny)
	}
	before := newFlightSession(t, s)
	if got, err := before.text(q); err != nil || !equalRows(got, ny) {
		t.Errorf("flight %v (err %v), want %v", got, err, ny)
	}
	conn := mysqlConn(t, s) // its session is set to UTC
	if _, err := conn.ExecContext(testCtx(t), "SET GLOBAL time_zone = '+8:00'"); err != nil {
		t.Fatal(err)
	}
	if got, err := mysqlText(testCtx(t), conn, q); err != nil || !equalRows(got, [][]string{{"+08:00", "+08:00"}}) {
		t.Errorf("mysql after SET GLOBAL: %v (err %v)", got, err)
	}
	if got := statementText(t, s, q); !equalRows(got, [][]string{{"+08:00", "+08:00"}}) {
		t.Errorf("statement API after SET GLOBAL: %v", got)
	}
	if got, err := before.text(q); err != nil || !equalRows(got, [][]string{{"America/New_York", "+08:00"}}) {
		t.Errorf("open flight token after SET GLOBAL: %v (err %v)", got, err)
	}
	if got, err := newFlightSession(t, s).text(q); err != nil || !equalRows(got, [][]string{{"+08:00", "+08:00"}}) {
		t.Errorf("new flight token after SET GLOBAL: %v (err %v)", got, err)
	}
	if _, err := Start(testCtx(t), Config{TimeZone: "Mars/Olympus"}); err == nil ||
		!strings.Contains(err.Error(), "Unknown or incorrect time zone: 'Mars/Olympus'") {
		t.Errorf("start with an unknown zone: %v", err)
	}
}

// TestAcceptanceDefaultTimeZoneIsHostZone: a Doris FE starts with its host's
// zone ID as the global time_zone, never MySQL's SYSTEM
// (fe/fe-core/src/main/java/org/apache/doris/qe/SessionVariable.java:
// `timeZone = TimeUtils.getSystemTimeZone().getID()`, and
// fe/fe-common/.../common/util/TimeUtils.java getSystemTimeZone: the JVM
// default zone, from TZ, through Doris's alias map), and every value that
// @@time_zone reads back can be SET again, globally and per session.
func TestAcceptanceDefaultTimeZoneIsHostZone(t *testing.T) {
	t.Setenv("TZ", "America/Sao_Paulo")
	s := startSim(t, Config{})
	q := "SELECT @@time_zone, @@global.time_zone"
	host := [][]string{{"America/Sao_Paulo", "America/Sao_Paulo"}}
	if got := statementText(t, s, q); !equalRows(got, host) {
		t.Errorf("statement API on a fresh FE %v, want %v", got, host)
	}
	if got, err := newFlightSession(t, s).text(q); err != nil || !equalRows(got, host) {
		t.Errorf("flight on a fresh FE %v (err %v), want %v", got, err, host)
	}
	conn := mysqlConn(t, s)
	if got, err := mysqlText(testCtx(t), conn, "SHOW GLOBAL VARIABLES LIKE 'time_zone'"); err != nil ||
		!equalRows(got, [][]string{{"time_zone", "America/Sao_Paulo"}}) {
		t.Errorf("SHOW GLOBAL VARIABLES on a fresh FE: %v (err %v)", got, err)
	}
	for _, v := range []string{"America/Sao_Paulo", "+8:00", "utc", "CST", "GMT+8:00", "Asia/Tokyo", "-05:00", "Etc/UTC"} {
		if _, err := conn.ExecContext(testCtx(t), "SET GLOBAL time_zone = '"+v+"'"); err != nil {
			t.Fatalf("SET GLOBAL time_zone = '%s': %v", v, err)
		}
		read, err := mysqlText(testCtx(t), conn, "SELECT @@global.time_zone")
		if err != nil {
			t.Fatal(err)
		}
		back := read[0][0]
		for _, stmt := range []string{"SET GLOBAL time_zone = '" + back + "'", "SET time_zone = '" + back + "'"} {
			if _, err := conn.ExecContext(testCtx(t), stmt); err != nil {
				t.Errorf("%s (read back after SET GLOBAL '%s'): %v", stmt, v, err)
			}
		}
		if got, _ := mysqlText(testCtx(t), conn, q); !equalRows(got, [][]string{{back, back}}) {
			t.Errorf("after setting the read-back %q again: %v", back, got)
		}
	}
	for tz, want := range map[string]string{":Asia/Tokyo": "Asia/Tokyo", "Mars/Olympus": "UTC", "GMT": "UTC", "EST5EDT": "UTC"} {
		t.Setenv("TZ", tz)
		if got := statementText(t, startSim(t, Config{}), "SELECT @@time_zone"); !equalRows(got, [][]string{{want}}) {
			t.Errorf("TZ=%s: fresh FE time_zone %v, want %s", tz, got, want)
		}
	}
}
