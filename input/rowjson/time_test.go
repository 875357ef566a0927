package rowjson

import (
	"math/rand"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

func tsType(u arrow.TimeUnit, zone string) *arrow.TimestampType {
	return &arrow.TimestampType{Unit: u, TimeZone: zone}
}

func TestDatetimePrecisionAndUnits(t *testing.T) {
	wall := time.Date(2024, 2, 29, 23, 59, 58, 123456789, time.UTC)
	fields := []arrow.Field{
		{Name: "s", Type: tsType(arrow.Second, ""), Nullable: true},
		{Name: "ms", Type: tsType(arrow.Millisecond, ""), Nullable: true},
		{Name: "us", Type: tsType(arrow.Microsecond, ""), Nullable: true},
		{Name: "ns", Type: tsType(arrow.Nanosecond, ""), Nullable: true},
		{Name: "p2", Type: tsType(arrow.Millisecond, ""), Nullable: true},
		{Name: "p0", Type: tsType(arrow.Microsecond, ""), Nullable: true},
		{Name: "p6", Type: tsType(arrow.Second, ""), Nullable: true},
	}
	rec := buildRecord(t, fields, func(b *array.RecordBuilder) {
		vals := []int64{wall.Unix(), wall.UnixMilli(), wall.UnixMicro(), wall.UnixNano(), wall.UnixMilli(), wall.UnixMicro(), wall.Unix()}
		for i, v := range vals {
			tb := b.Field(i).(*array.TimestampBuilder)
			tb.Append(arrow.Timestamp(v))
			tb.AppendNull()
		}
	})
	opts := Options{DatetimePrecision: map[string]int{"p2": 2, "p0": 0, "p6": 6}}
	expectRows(t, convertAll(t, rec, opts),
		`{"s":"2024-02-29 23:59:58","ms":"2024-02-29 23:59:58.123","us":"2024-02-29 23:59:58.123456","ns":"2024-02-29 23:59:58.123456","p2":"2024-02-29 23:59:58.12","p0":"2024-02-29 23:59:58","p6":"2024-02-29 23:59:58.000000"}`,
		`{"s":null,"ms":null,"us":null,"ns":null,"p2":null,"p0":null,"p6":null}`,
	)
}

func TestZonedTimestampUsesLocation(t *testing.T) {
	shanghai, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Skipf("no tzdata: %v", err)
	}
	instant := time.Date(2024, 1, 1, 20, 30, 0, 500_000_000, time.UTC)
	fields := []arrow.Field{
		{Name: "zoned", Type: tsType(arrow.Millisecond, "UTC")},
		{Name: "wall", Type: tsType(arrow.Millisecond, "")},
	}
	rec := buildRecord(t, fields, func(b *array.RecordBuilder) {
		b.Field(0).(*array.TimestampBuilder).Append(arrow.Timestamp(instant.UnixMilli()))
		b.Field(1).(*array.TimestampBuilder).Append(arrow.Timestamp(instant.UnixMilli()))
	})
	expectRows(t, convertAll(t, rec, Options{Location: shanghai}),
		`{"zoned":"2024-01-02 04:30:00.500","wall":"2024-01-01 20:30:00.500"}`)
	expectRows(t, convertAll(t, rec, Options{}),
		`{"zoned":"2024-01-01 20:30:00.500","wall":"2024-01-01 20:30:00.500"}`)
}

func TestDatesAndPre1970(t *testing.T) {
	fields := []arrow.Field{
		{Name: "d32", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "d64", Type: arrow.FixedWidthTypes.Date64, Nullable: true},
		{Name: "ts", Type: tsType(arrow.Microsecond, ""), Nullable: true},
		{Name: "v1", Type: arrow.BinaryTypes.String, Nullable: true},
	}
	days := []int32{0, -1, -719528, 2932896} // 1970-01-01, 1969-12-31, 0000-01-01, 9999-12-31
	rec := buildRecord(t, fields, func(b *array.RecordBuilder) {
		for _, d := range days {
			b.Field(0).(*array.Date32Builder).Append(arrow.Date32(d))
			b.Field(1).(*array.Date64Builder).Append(arrow.Date64(int64(d) * 86400000))
		}
		tb := b.Field(2).(*array.TimestampBuilder)
		tb.Append(0)
		tb.Append(-1) // one microsecond before the epoch
		tb.Append(arrow.Timestamp(time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()))
		tb.AppendNull()
		b.Field(3).(*array.StringBuilder).AppendValues([]string{"2020-01-02", "2020-01-02 03:04:05", "", ""}, []bool{true, true, false, false})
	})
	expectRows(t, convertAll(t, rec, Options{}),
		`{"d32":"1970-01-01","d64":"1970-01-01","ts":"1970-01-01 00:00:00.000000","v1":"2020-01-02"}`,
		`{"d32":"1969-12-31","d64":"1969-12-31","ts":"1969-12-31 23:59:59.999999","v1":"2020-01-02 03:04:05"}`,
		`{"d32":"0000-01-01","d64":"0000-01-01","ts":"0001-01-01 00:00:00.000000","v1":null}`,
		`{"d32":"9999-12-31","d64":"9999-12-31","ts":null,"v1":null}`,
	)
}

// TestCivilMatchesTime checks the calendar arithmetic against package time
// over random instants, including far before the epoch.
func TestCivilMatchesTime(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	w := newTimestampWriter(tsType(arrow.Nanosecond, ""), 9, time.UTC)
	for n := 0; n < 20000; n++ {
		v := rng.Int63() - rng.Int63()
		w.values = []arrow.Timestamp{arrow.Timestamp(v)}
		got := string(w.write(nil, 0))
		want := `"` + time.Unix(0, v).UTC().Format("2006-01-02 15:04:05.000000000") + `"`
		if got != want {
			t.Fatalf("timestamp %d = %s, want %s", v, got, want)
		}
	}
}

func TestDatetimePrecisionValidated(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "t", Type: tsType(arrow.Second, "")}}, nil)
	if _, err := NewConverter(schema, Options{DatetimePrecision: map[string]int{"t": 10}}); err == nil {
		t.Fatal("precision 10 accepted")
	}
}
