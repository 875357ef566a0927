package checkpoint

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/rpconnect-doris/rpconnect-doris/cache"
)

// bigTablets returns n tablet ids as Doris hands them out (one counter,
// consecutive within a table), starting at a 13-digit id, and every other
// one of them: the worst case for runs.
func bigTablets(n int) (all, everyOther []int64) {
	const first = int64(1_731_000_000_000)
	for i := range n {
		all = append(all, first+int64(i))
		if i%2 == 0 {
			everyOther = append(everyOther, first+int64(i))
		}
	}
	return all, everyOther
}

// TestCheckpointOfManyTabletsFitsTheDorisCache: tables of 20,000 tablets,
// stopped mid-snapshot with every other tablet done, as many of them as
// max_parallel_snapshot_tables could leave half-read, checkpoint within the
// doris cache's value limit, and read back the same.
func TestCheckpointOfManyTabletsFitsTheDorisCache(t *testing.T) {
	_, half := bigTablets(20_000)
	st := New()
	st.Stream = &Window{Start: mustBound("2026-11-01 10:00:00")}
	const tables = 16
	for i := range tables {
		st.Tables["shop.t"+strings.Repeat("x", i)] = &Table{Phase: PhaseSnapshot, DoneTablets: half, MaxTablet: half[len(half)-1] + 1}
	}
	b, err := Encode(st)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > cache.ValueLimitBytes {
		t.Fatalf("%d tables of 20,000 tablets, every other done, take %d bytes, more than the doris cache's %d", tables, len(b), cache.ValueLimitBytes)
	}
	if per := len(b) / tables; per > 32<<10 {
		t.Fatalf("one table of 20,000 tablets takes %d bytes; want at most 32 KiB", per)
	}
	got, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	for name, tb := range got.Tables {
		if !slices.Equal(tb.DoneTablets, half) {
			t.Fatalf("%s: done tablets do not read back (%d of %d)", name, len(tb.DoneTablets), len(half))
		}
	}
}

func TestTabletsRoundTrip(t *testing.T) {
	all, half := bigTablets(1000)
	for _, tc := range []struct {
		in   Tablets
		text string
	}{
		{Tablets{5, 6, 7, 10}, `"5+2,3"`},
		{Tablets{10, 7, 5, 6, 6}, `"5+2,3"`}, // any order, duplicates once
		{Tablets{1}, `"1"`},
		{Tablets{1 << 62, 1<<62 + 1}, `"4611686018427387904+1"`},
		{Tablets(all), `"1731000000000+999"`},
		{Tablets(half), ""},
	} {
		b, err := json.Marshal(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		if tc.text != "" && string(b) != tc.text {
			t.Errorf("%v is written %s, want %s", tc.in, b, tc.text)
		}
		var back Tablets
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		want := slices.Compact(slices.Sorted(slices.Values(tc.in)))
		if !slices.Equal(back, want) {
			t.Errorf("%s reads back as %v, want %v", b, back, want)
		}
	}
}

func TestTabletsRejectMalformedRuns(t *testing.T) {
	for _, s := range []string{`"0"`, `"5,0"`, `"-5"`, `"5+0"`, `"05"`, `"5,"`, `"5++1"`, `"a"`, `"9223372036854775807,1"`, `"1+2000000"`, `"1+600000,2+600000"`, `7`} {
		var ts Tablets
		if err := json.Unmarshal([]byte(s), &ts); err == nil {
			t.Errorf("%s was accepted as %v", s, ts)
		}
	}
}

// TestDecodeVersion2Tablets reads a checkpoint written with the done tablets
// as an array of ids, and writes it in the current layout.
func TestDecodeVersion2Tablets(t *testing.T) {
	b, err := os.ReadFile("testdata/v2_snapshot.json")
	if err != nil {
		t.Fatal(err)
	}
	st, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	orders := st.Tables["shop.orders"]
	if st.Version != Version || st.Seq != 41 || orders == nil || orders.MaxTablet != 10030 ||
		!slices.Equal(slices.Sorted(slices.Values(orders.DoneTablets)), []int64{10010, 10011, 10012, 10020}) {
		t.Fatalf("decoded %+v, orders %+v", st, orders)
	}
	out, err := Encode(st)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"snapshot_done_tablets":"10010+2,8"`) || !strings.Contains(string(out), `"version":3`) {
		t.Fatalf("written as %s", out)
	}
}
