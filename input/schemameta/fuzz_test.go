package schemameta

import (
	"reflect"
	"testing"

	"github.com/redpanda-data/benthos/v4/public/schema"
)

// FuzzParseType: type text from SHOW CREATE TABLE never panics the parser,
// and whatever maps to a schema validates and survives ToAny/ParseFromAny.
func FuzzParseType(f *testing.F) {
	for _, s := range []string{
		"int", "decimal(10,2)", "datetime(3)", "array<map<string,struct<a:int,`b``c`:varchar(3) NOT NULL COMMENT 'x'>>>",
		"map<array<int>,json>", "struct<a:int", "decimal(99999999999,1)", "`", "'", "array<", "map<int,>", "varchar(-1)",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		typ, err := parseType(text)
		if err != nil {
			return
		}
		c, err := commonOf("c", typ, true)
		if err != nil {
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("%q maps to an invalid schema: %v", text, err)
		}
		back, err := schema.ParseFromAny(c.ToAny())
		if err != nil {
			t.Fatalf("%q: ParseFromAny: %v", text, err)
		}
		if !reflect.DeepEqual(back, c) {
			t.Fatalf("%q: round trip %+v != %+v", text, back, c)
		}
	})
}
