package rowjson

import (
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

const secondsPerDay = 86400

var pow10 = [...]int64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// civil converts days since 1970-01-01 to a proleptic Gregorian date
// (H. Hinnant's days_from_civil inverse), avoiding time.Time on the hot path.
func civil(days int64) (year int64, month, day int) {
	z := days + 719468
	era := floorDiv(z, 146097)
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	day = int(doy - (153*mp+2)/5 + 1)
	month = int(mp + 3)
	if month > 12 {
		month -= 12
	}
	year = yoe + era*400
	if month <= 2 {
		year++
	}
	return year, month, day
}

func appendDate(dst []byte, year int64, month, day int) []byte {
	if year >= 0 && year <= 9999 {
		dst = appendPadded(dst, uint64(year), 4)
	} else {
		dst = strconv.AppendInt(dst, year, 10)
	}
	dst = append(dst, '-')
	dst = append2(dst, month)
	dst = append(dst, '-')
	return append2(dst, day)
}

// appendClock appends HH:mm:ss and then exactly prec fractional digits of
// nanos, truncated as Doris truncates DATETIME(p).
func appendClock(dst []byte, hour, minute, sec int, nanos int64, prec int) []byte {
	dst = append2(dst, hour)
	dst = append(dst, ':')
	dst = append2(dst, minute)
	dst = append(dst, ':')
	dst = append2(dst, sec)
	if prec > 0 {
		dst = append(dst, '.')
		dst = appendPadded(dst, uint64(nanos/pow10[9-prec]), prec)
	}
	return dst
}

// dayCache remembers the text of the last day printed: rows of a batch are
// usually close in time, so most rows skip the calendar arithmetic.
type dayCache struct {
	day  int64
	text []byte
	ok   bool
}

func (c *dayCache) appendDay(dst []byte, days int64) []byte {
	if !c.ok || c.day != days {
		y, m, d := civil(days)
		c.text = appendDate(c.text[:0], y, m, d)
		c.day, c.ok = days, true
	}
	return append(dst, c.text...)
}

// dateWriter writes DATEV2 (date32, days) and date64 (milliseconds).
type dateWriter[T arrow.Date32 | arrow.Date64] struct {
	validity
	dayCache
	values  []T
	divisor int64 // units per day
}

func (w *dateWriter[T]) bind(arr arrow.Array) (err error) {
	w.values, err = bindValues[T](arr, &w.validity, "date")
	return err
}

func (w *dateWriter[T]) write(dst []byte, i int) []byte {
	if w.null(i) {
		return append(dst, "null"...)
	}
	dst = append(dst, '"')
	dst = w.appendDay(dst, floorDiv(int64(w.values[i]), w.divisor))
	return append(dst, '"')
}

// timestampWriter writes DATETIMEV2. Without a zone the value is Doris's wall
// clock and is printed as is; with a zone it is an instant and is printed on
// the wall clock of loc (nil means UTC).
type timestampWriter struct {
	validity
	dayCache
	values   []arrow.Timestamp
	perSec   int64
	nsPerVal int64
	prec     int
	loc      *time.Location
}

func newTimestampWriter(t *arrow.TimestampType, prec int, loc *time.Location) *timestampWriter {
	w := &timestampWriter{prec: prec, perSec: 1, nsPerVal: 1e9}
	switch t.Unit {
	case arrow.Millisecond:
		w.perSec, w.nsPerVal = 1e3, 1e6
	case arrow.Microsecond:
		w.perSec, w.nsPerVal = 1e6, 1e3
	case arrow.Nanosecond:
		w.perSec, w.nsPerVal = 1e9, 1
	}
	if t.TimeZone != "" && loc != nil && loc != time.UTC {
		w.loc = loc
	}
	return w
}

// unitPrecision is the default number of fractional digits for a unit when
// the column's DATETIME precision is unknown; nanoseconds are cut to Doris's
// maximum of 6.
func unitPrecision(u arrow.TimeUnit) int {
	switch u {
	case arrow.Millisecond:
		return 3
	case arrow.Microsecond, arrow.Nanosecond:
		return 6
	}
	return 0
}

func (w *timestampWriter) bind(arr arrow.Array) (err error) {
	w.values, err = bindValues[arrow.Timestamp](arr, &w.validity, "timestamp")
	return err
}

func (w *timestampWriter) write(dst []byte, i int) []byte {
	if w.null(i) {
		return append(dst, "null"...)
	}
	v := int64(w.values[i])
	sec := floorDiv(v, w.perSec)
	nanos := (v - sec*w.perSec) * w.nsPerVal
	dst = append(dst, '"')
	if w.loc != nil {
		t := time.Unix(sec, nanos).In(w.loc)
		y, m, d := t.Date()
		hh, mm, ss := t.Clock()
		dst = appendDate(dst, int64(y), int(m), d)
		dst = append(dst, ' ')
		dst = appendClock(dst, hh, mm, ss, nanos, w.prec)
		return append(dst, '"')
	}
	days := floorDiv(sec, secondsPerDay)
	sod := int(sec - days*secondsPerDay)
	dst = w.appendDay(dst, days)
	dst = append(dst, ' ')
	dst = appendClock(dst, sod/3600, sod/60%60, sod%60, nanos, w.prec)
	return append(dst, '"')
}
