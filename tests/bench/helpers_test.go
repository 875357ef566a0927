package bench

import (
	"strings"
	"testing"
	"time"
)

func TestReadyAddrs(t *testing.T) {
	got, ok := readyAddrs("dorissim ready http=127.0.0.1:1 mysql=127.0.0.1:2 flight=127.0.0.1:3 be_flight=127.0.0.1:4")
	if !ok || got["http"] != "127.0.0.1:1" || got["be_flight"] != "127.0.0.1:4" {
		t.Fatalf("got %v %v", got, ok)
	}
	for _, bad := range []string{"", "dorissim ready http=1", "ready http=a mysql=b flight=c be_flight=d", "dorissim ready http= mysql=b flight=c be_flight=d"} {
		if _, ok := readyAddrs(bad); ok {
			t.Errorf("accepted %q", bad)
		}
	}
}

func TestParseStatCPU(t *testing.T) {
	stat := "4242 (rpconnect doris) S 1 2 3 4 5 6 7 8 9 10 250 130 0 0 20 0 8 0 100 0 0"
	got, err := parseStatCPU(stat)
	if err != nil || got != 3800*time.Millisecond {
		t.Fatalf("got %v %v, want 3.8s", got, err)
	}
	if _, err := parseStatCPU("4242 (x) S 1"); err == nil {
		t.Fatal("short stat accepted")
	}
}

func TestParseStatusKB(t *testing.T) {
	status := "Name:\trpconnect\nVmHWM:\t  123456 kB\nVmRSS:\t   1000 kB\n"
	if v, err := parseStatusKB(status, "VmHWM"); err != nil || v != 123456 {
		t.Fatalf("VmHWM %v %v", v, err)
	}
	if _, err := parseStatusKB(status, "VmSwap"); err == nil {
		t.Fatal("missing key accepted")
	}
}

func TestBinlogRows(t *testing.T) {
	text := `{"doris_binlog_rows_total{operation=\"insert\",phase=\"binlog\"}":600000,
"doris_binlog_rows_total{operation=\"delete\",phase=\"binlog\"}":100000,
"doris_binlog_rows_total{operation=\"read\",phase=\"snapshot\"}":5,
"doris_binlog_window_seconds":{"p50":1,"p90":2,"p99":3},
"input_received":700005}`
	if got, err := binlogRows([]byte(text)); err != nil || got != 700000 {
		t.Fatalf("got %d %v, want 700000", got, err)
	}
	if _, err := binlogRows([]byte("not json")); err == nil {
		t.Fatal("garbage accepted")
	}
}

func TestPercentile(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 100; i++ {
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	if p := percentile(d, 50); p != 50*time.Millisecond {
		t.Errorf("p50 %v", p)
	}
	if p := percentile(d, 99); p != 99*time.Millisecond {
		t.Errorf("p99 %v", p)
	}
	if p := percentile(nil, 99); p != 0 {
		t.Errorf("empty p99 %v", p)
	}
}

func TestAppendJSONStringMatchesEncodingJSON(t *testing.T) {
	in := "a\"b\\c\n\t\x01 café \u2028 \xff"
	want := `"a\"b\\c\n\t\u0001 café \u2028 ` + "\ufffd" + `"`
	if got := string(appendJSONString(nil, in)); got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

func TestMixedRowHasTwelveFields(t *testing.T) {
	for _, id := range []int64{0, 9, 12345} {
		line := strings.TrimSuffix(string(appendMixedRow(nil, id, 1)), "\n")
		if n := len(strings.Split(line, "\t")); n != 12 {
			t.Fatalf("row %d has %d fields: %q", id, n, line)
		}
	}
}

func TestRenderTable(t *testing.T) {
	out := renderTable([]row{info("rows", "5"), check("ratio", "6.0", ">= 5", true), check("p99", "2s", "<= 1.5s", false)})
	for _, want := range []string{"| metric | value | target | pass |", "| rows | 5 |  |  |", "| ratio | 6.0 | >= 5 | yes |", "| p99 | 2s | <= 1.5s | no |"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}

func TestBenchRounds(t *testing.T) {
	for v, want := range map[string]int{"": 4, "3": 3, "0": 4, "-2": 4, "x": 4} {
		t.Setenv("BENCH_ROUNDS", v)
		if got := benchRounds(4); got != want {
			t.Errorf("BENCH_ROUNDS=%q: %d rounds, want %d", v, got, want)
		}
	}
}
