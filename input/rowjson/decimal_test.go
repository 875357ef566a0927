package rowjson

import (
	"math/big"
	"math/rand"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
)

func dec128(t *testing.T, s string, p, sc int32) decimal128.Num {
	t.Helper()
	n, err := decimal128.FromString(s, p, sc)
	if err != nil {
		t.Fatalf("decimal128 %s: %v", s, err)
	}
	return n
}

func TestDecimal128KeepsScale(t *testing.T) {
	fields := []arrow.Field{
		{Name: "d", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}, Nullable: true},
		{Name: "big", Type: &arrow.Decimal128Type{Precision: 38, Scale: 0}, Nullable: true},
		{Name: "frac", Type: &arrow.Decimal128Type{Precision: 38, Scale: 38}, Nullable: true},
	}
	rec := buildRecord(t, fields, func(b *array.RecordBuilder) {
		d := b.Field(0).(*array.Decimal128Builder)
		for _, s := range []string{"12.3", "-12.3", "0", "-0.05", "99999999.99"} {
			d.Append(dec128(t, s, 10, 2))
		}
		d.AppendNull()
		bg := b.Field(1).(*array.Decimal128Builder)
		for _, s := range []string{"99999999999999999999999999999999999999", "-99999999999999999999999999999999999999", "18446744073709551616", "-1", "1", "0"} {
			bg.Append(dec128(t, s, 38, 0))
		}
		fr := b.Field(2).(*array.Decimal128Builder)
		for _, s := range []string{"0.99999999999999999999999999999999999999", "-0.00000000000000000000000000000000000001", "0", "0.5", "-0.5"} {
			fr.Append(dec128(t, s, 38, 38))
		}
		fr.AppendNull()
	})
	expectRows(t, convertAll(t, rec, Options{}),
		`{"d":"12.30","big":"99999999999999999999999999999999999999","frac":"0.99999999999999999999999999999999999999"}`,
		`{"d":"-12.30","big":"-99999999999999999999999999999999999999","frac":"-0.00000000000000000000000000000000000001"}`,
		`{"d":"0.00","big":"18446744073709551616","frac":"0.00000000000000000000000000000000000000"}`,
		`{"d":"-0.05","big":"-1","frac":"0.50000000000000000000000000000000000000"}`,
		`{"d":"99999999.99","big":"1","frac":"-0.50000000000000000000000000000000000000"}`,
		`{"d":null,"big":"0","frac":null}`,
	)
}

func TestDecimal256AndSmallDecimals(t *testing.T) {
	max76 := strings.Repeat("9", 76)
	fields := []arrow.Field{
		{Name: "d256", Type: &arrow.Decimal256Type{Precision: 76, Scale: 10}, Nullable: true},
		{Name: "d32", Type: &arrow.Decimal32Type{Precision: 9, Scale: 3}, Nullable: true},
		{Name: "d64", Type: &arrow.Decimal64Type{Precision: 18, Scale: 0}, Nullable: true},
	}
	rec := buildRecord(t, fields, func(b *array.RecordBuilder) {
		d := b.Field(0).(*array.Decimal256Builder)
		for _, s := range []string{max76[:66] + "." + max76[66:], "-" + max76[:66] + "." + max76[66:], "-1.5"} {
			n, err := decimal256.FromString(s, 76, 10)
			if err != nil {
				t.Fatal(err)
			}
			d.Append(n)
		}
		d32 := b.Field(1).(*array.Decimal32Builder)
		d32.Append(-1)
		d32.Append(123456789)
		d32.AppendNull()
		d64 := b.Field(2).(*array.Decimal64Builder)
		d64.Append(-999999999999999999)
		d64.Append(0)
		d64.Append(42)
	})
	expectRows(t, convertAll(t, rec, Options{}),
		`{"d256":"`+max76[:66]+"."+max76[66:]+`","d32":"-0.001","d64":"-999999999999999999"}`,
		`{"d256":"-`+max76[:66]+"."+max76[66:]+`","d32":"123456.789","d64":"0"}`,
		`{"d256":"-1.5000000000","d32":null,"d64":"42"}`,
	)
}

// TestAppendDecimalMatchesBigInt compares random 256-bit values at random
// scales (including negative ones) with a math/big reference.
func TestAppendDecimalMatchesBigInt(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for n := 0; n < 20000; n++ {
		var l limbs
		width := 1 + rng.Intn(4)
		for j := 0; j < width; j++ {
			l[j] = rng.Uint64()
		}
		if rng.Intn(4) == 0 { // small magnitudes exercise leading-zero paths
			l = limbs{uint64(rng.Intn(1000))}
			if rng.Intn(2) == 0 {
				l.negate(4)
			}
		} else if int64(l[width-1]) < 0 && width < 4 {
			for j := width; j < 4; j++ {
				l[j] = ^uint64(0)
			}
		}
		scale := int32(rng.Intn(90) - 10)
		got := string(appendDecimal(nil, l, 4, scale))
		if want := bigDecimalString(l, scale); got != want {
			t.Fatalf("appendDecimal(%v, %d) = %s, want %s", l, scale, got, want)
		}
	}
}

func bigDecimalString(l limbs, scale int32) string {
	v := new(big.Int)
	for j := 3; j >= 0; j-- {
		v.Lsh(v, 64).Or(v, new(big.Int).SetUint64(l[j]))
	}
	if int64(l[3]) < 0 {
		v.Sub(v, new(big.Int).Lsh(big.NewInt(1), 256))
	}
	neg := v.Sign() < 0
	digits := new(big.Int).Abs(v).String()
	switch {
	case scale <= 0 && digits == "0":
	case scale <= 0:
		digits += strings.Repeat("0", int(-scale))
	case len(digits) > int(scale):
		digits = digits[:len(digits)-int(scale)] + "." + digits[len(digits)-int(scale):]
	default:
		digits = "0." + strings.Repeat("0", int(scale)-len(digits)) + digits
	}
	if neg {
		return "-" + digits
	}
	return digits
}

func TestLargeIntEncodings(t *testing.T) {
	vals := []string{"0", "-1", "170141183460469231731687303715884105727", "-170141183460469231731687303715884105728", "18446744073709551616", "-18446744073709551617"}
	fields := []arrow.Field{
		{Name: "li_str", Type: arrow.BinaryTypes.String, Nullable: true, Metadata: meta("LARGEINT")},
		{Name: "li_bin", Type: &arrow.FixedSizeBinaryType{ByteWidth: 16}, Nullable: true},
	}
	rec := buildRecord(t, fields, func(b *array.RecordBuilder) {
		for _, s := range vals {
			b.Field(0).(*array.StringBuilder).Append(s)
			v, _ := new(big.Int).SetString(s, 10)
			b.Field(1).(*array.FixedSizeBinaryBuilder).Append(leBytes16(v))
		}
		b.Field(0).AppendNull()
		b.Field(1).AppendNull()
	})
	got := convertAll(t, rec, Options{})
	want := make([]string, 0, len(vals)+1)
	for _, s := range vals {
		want = append(want, `{"li_str":"`+s+`","li_bin":"`+s+`"}`)
	}
	expectRows(t, got, append(want, `{"li_str":null,"li_bin":null}`)...)
}

// leBytes16 encodes v as 16-byte little-endian two's complement.
func leBytes16(v *big.Int) []byte {
	u := new(big.Int).Set(v)
	if u.Sign() < 0 {
		u.Add(u, new(big.Int).Lsh(big.NewInt(1), 128))
	}
	be := u.FillBytes(make([]byte, 16))
	for i, j := 0, 15; i < j; i, j = i+1, j-1 {
		be[i], be[j] = be[j], be[i]
	}
	return be
}
