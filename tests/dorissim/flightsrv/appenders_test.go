package flightsrv

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/shopspring/decimal"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// The int64 fast path and the big.Int path must give the same unscaled
// values, at the edges of int64 and past them, and for values whose
// exponent is not the column's scale.
func TestDecimal128AppenderUnscaledValues(t *testing.T) {
	cases := []struct{ in, want string }{
		{"12.30", "1230"},
		{"-0.01", "-1"},
		{"0", "0"},
		{"12.3", "1230"}, // exponent -1 in a scale-2 column
		{"92233720368547758.07", "9223372036854775807"},
		{"-92233720368547758.08", "-9223372036854775808"},
		{"92233720368547758.08", "9223372036854775808"},
		{"-123456789012345678901234567890123456.78", "-12345678901234567890123456789012345678"},
	}
	typ := storage.Type{Kind: storage.Decimal, Precision: 38, Scale: 2}
	b := array.NewDecimal128Builder(memory.NewGoAllocator(), &arrow.Decimal128Type{Precision: 38, Scale: 2})
	defer b.Release()
	app, err := bind(typ, b)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if err := app(decimal.RequireFromString(c.in)); err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
	}
	arr := b.NewDecimal128Array()
	defer arr.Release()
	for i, c := range cases {
		if got := arr.Value(i).BigInt().String(); got != c.want {
			t.Errorf("%s: unscaled %s, want %s", c.in, got, c.want)
		}
	}
}
