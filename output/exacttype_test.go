package output

import (
	"testing"

	"github.com/redpanda-data/benthos/v4/public/schema"
	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/doris/ddl"
)

func TestExactFitLengthensVarcharOnly(t *testing.T) {
	for _, c := range []struct {
		src, target string
		f           fit
		to          string
		judged      bool
	}{
		{"varchar(50)", "varchar(10)", fitWiden, "VARCHAR(50)", true},
		{"char(20)", "VARCHAR(10)", fitWiden, "VARCHAR(20)", true},
		{"varchar(10)", "varchar(50)", fitOK, "", true},
		{"varchar(50)", "varchar(50)", fitOK, "", true},
		{"varchar(50)", "string", fitOK, "", false},
		{"decimal(20,4)", "decimal(10,2)", fitOK, "", false}, // typeFit judges it from the Common DECIMAL
		{"text", "varchar(10)", fitOK, "", false},
	} {
		f, to, judged := exactFit(c.src, c.target)
		if f != c.f || to != c.to || judged != c.judged {
			t.Errorf("exactFit(%s, %s) = %v %q %v, want %v %q %v", c.src, c.target, f, to, judged, c.f, c.to, c.judged)
		}
	}
}

// A VARCHAR lengthened at the source leaves the Common schema (STRING) and
// its fingerprint as they were: with schema_evolution the scan tells the
// two schemas apart by their doris_schema, and a message sharing the
// previous one's values costs no fingerprint read.
func TestSchemaScanTellsDescriptionsApart(t *testing.T) {
	common := schema.Common{Name: "t", Type: schema.Object, Children: []schema.Common{{Name: "id", Type: schema.Int64}, {Name: "name", Type: schema.String}}}
	props := &doris.TableProperties{KeysType: "UNIQUE_KEYS", KeyColumns: []string{"id"}, Nullable: map[string]bool{"id": false}}
	short := ddl.Describe(props, []doris.ColumnDef{{Name: "id", Type: "bigint"}, {Name: "name", Type: "varchar(10)"}})
	long := ddl.Describe(props, []doris.ColumnDef{{Name: "id", Type: "bigint"}, {Name: "name", Type: "varchar(50)"}})
	sv := service.ImmutableAny{V: common.ToAny()}
	msgs := service.MessageBatch{}
	for i, d := range []map[string]any{short, short, long, long} {
		m := change(`{}`, "s", "t", opInsert, int64(10+i), 1)
		m.MetaSetImmut(metaSchema, sv)
		m.MetaSetImmut(ddl.MetaKey, service.ImmutableAny{V: d})
		msgs = append(msgs, m)
	}
	sc := &schemaScan{exact: true}
	for i, m := range msgs {
		sc.note(m, i, "d.t")
	}
	if sc.err != nil || len(sc.schemas) != 2 || sc.schemas[1].first != 2 || sc.schemas[0].fp != sc.schemas[1].fp || sc.schemas[0].key == sc.schemas[1].key {
		t.Fatalf("schemas %+v, err %v", sc.schemas, sc.err)
	}
	plain := &schemaScan{}
	for i, m := range msgs {
		plain.note(m, i, "d.t")
	}
	if len(plain.schemas) != 1 {
		t.Fatalf("without schema_evolution doris_schema is not read: %+v", plain.schemas)
	}
	m := msgs[3]
	if n := testing.AllocsPerRun(200, func() { sc.note(m, 3, "d.t") }); n != 0 {
		t.Fatalf("a message with the previous message's schema values allocates %v times", n)
	}
}
