package output

import (
	"testing"

	"github.com/redpanda-data/benthos/v4/public/schema"
)

func dec(p, s int32) schema.Common {
	return schema.Common{Name: "d", Type: schema.Decimal, Logical: &schema.LogicalParams{Decimal: &schema.DecimalParams{Precision: p, Scale: s}}}
}

func TestTypeFitWidensOnlyWhatDorisCan(t *testing.T) {
	cases := []struct {
		c      schema.Common
		target string
		want   fit
		to     string
	}{
		{schema.Common{Type: schema.Int32}, "tinyint", fitOK, ""}, // INT32 may be a TINYINT at the source
		{schema.Common{Type: schema.Int64}, "int", fitWiden, "BIGINT"},
		{schema.Common{Type: schema.Int64}, "bigint", fitOK, ""},
		{schema.Common{Type: schema.Float64}, "float", fitWiden, "DOUBLE"},
		{dec(12, 2), "decimal(10,2)", fitWiden, "DECIMAL(12, 2)"},
		{dec(10, 4), "decimal(10,2)", fitNo, ""}, // a larger scale: Doris never raises it
		{dec(8, 2), "decimal(10,2)", fitOK, ""},
		{schema.Common{Type: schema.String}, "int", fitNo, ""},
		{schema.Common{Type: schema.String}, "varchar(10)", fitOK, ""},
		{schema.Common{Type: schema.Int64}, "string", fitOK, ""},
		{schema.Common{Type: schema.Timestamp}, "date", fitNo, ""},
		{schema.Common{Type: schema.Date}, "datetime(3)", fitOK, ""},
	}
	for _, c := range cases {
		f, to := typeFit(c.c, c.target)
		if f != c.want || to != c.to {
			t.Errorf("%s into %s: got %d %q, want %d %q", c.c.Type, c.target, f, to, c.want, c.to)
		}
	}
}

// TestTypeFitTakesDorisBinlogTypes: every column doris_binlog describes fits
// a target of the source's own type, so replicating a table as it is never
// stops.
func TestTypeFitTakesDorisBinlogTypes(t *testing.T) {
	entry := schema.Common{Type: schema.Object, Children: []schema.Common{{Name: "key", Type: schema.Array}, {Name: "value", Type: schema.Int32}}}
	cases := []struct {
		c      schema.Common
		target string
	}{
		{schema.Common{Type: schema.String}, "ipv4"},
		{schema.Common{Type: schema.Array, Children: []schema.Common{entry}}, "map<array<int>,int>"},
		{schema.Common{Type: schema.BigDecimal}, "largeint"},
		{schema.Common{Type: schema.Any}, "variant"},
		{schema.Common{Type: schema.Int32}, "tinyint"},
		{schema.Common{Type: schema.Boolean}, "boolean"},
		{dec(10, 2), "decimalv3(10,2)"},
		{schema.Common{Type: schema.Timestamp}, "datetimev2(6)"},
		{schema.Common{Type: schema.String}, "hll"},
	}
	for _, c := range cases {
		if f, _ := typeFit(c.c, c.target); f != fitOK {
			t.Errorf("%s into %s: %d, want it to fit", c.c.Type, c.target, f)
		}
	}
}
