package security

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/rpconnect-doris/rpconnect-doris/input/rowjson"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// TestMalformedRESTAnswers puts an FE in front of the simulator that answers
// one REST endpoint with garbage. The error names the server and what was
// being read; nothing is delivered and no offset is stored.
func TestMalformedRESTAnswers(t *testing.T) {
	cases := []struct {
		name, path, mode, body, want string
	}{
		{"tso", "/api/tso", "latest", `<html>Bad Gateway</html>`, `(?i)tso|timestamp`},
		{"tso_truncated", "/api/tso", "latest", `{"msg":"success","code":0,"data":{"current_tso":`, `(?i)tso|timestamp`},
		{"statement", "/api/query/default_cluster/information_schema", "latest", `{"msg":"success","code":0,"data":{"type":"result_set","data":"nope"}}`, `(?i)sec\.garbage_statement|show create|properties|statement`},
		{"query_plan", "/_query_plan", "snapshot", `{"msg":"success","code":0,"data":{"partitions":[1,2,3],"opaqued_query_plan":7}}`, `(?i)query plan|_query_plan`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := harness.StartSim(t, dorissim.Config{Password: "pw-garbage"})
			table := "garbage_" + tc.name
			harness.CreateTable(t, srv, db, table, harness.TableOpts{})
			if err := harness.NewWorkload(srv, db, table, 2).Insert(ctxTimeout(t, time.Minute), 10); err != nil {
				t.Fatal(err)
			}
			proxy := harness.StartFEProxy(t, srv.HTTPAddr())
			proxy.Rewrite(func(path string, status int, body []byte) (int, []byte) {
				if strings.HasSuffix(path, tc.path) {
					return http.StatusOK, []byte(tc.body)
				}
				return status, body
			})
			in := inputYAML(proxy.Addr(), db+"."+table, "pw-garbage", "scan_mode: "+tc.mode)
			f := runFailing(t, in, tc.want+`.*`+regexp.QuoteMeta(proxy.Addr())+`|`+regexp.QuoteMeta(proxy.Addr())+`.*`+tc.want)
			f.assertClean(t, map[string]string{}, "pw-garbage")
		})
	}
}

// TestArrowSchemaWithoutHiddenColumns gives the row converter a binlog
// result whose schema lacks the hidden __DORIS_BINLOG_* columns, or has
// them with a type Doris never sends: each is an error naming the column.
func TestArrowSchemaWithoutHiddenColumns(t *testing.T) {
	body := []arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "name", Type: arrow.BinaryTypes.String, Nullable: true}}
	cases := []struct {
		name   string
		extra  []arrow.Field
		column string
	}{
		{"none", nil, rowjson.ColumnTSO},
		{"no_lsn", []arrow.Field{{Name: rowjson.ColumnTSO, Type: arrow.PrimitiveTypes.Int64}}, rowjson.ColumnLSN},
		{"no_op", []arrow.Field{{Name: rowjson.ColumnTSO, Type: arrow.PrimitiveTypes.Int64}, {Name: rowjson.ColumnLSN, Type: arrow.PrimitiveTypes.Int64}}, rowjson.ColumnOp},
		{"op_is_float", []arrow.Field{{Name: rowjson.ColumnTSO, Type: arrow.PrimitiveTypes.Int64}, {Name: rowjson.ColumnLSN, Type: arrow.PrimitiveTypes.Int64},
			{Name: rowjson.ColumnOp, Type: arrow.PrimitiveTypes.Float64}}, rowjson.ColumnOp},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			schema := arrow.NewSchema(append(append([]arrow.Field(nil), body...), tc.extra...), nil)
			_, err := rowjson.NewConverter(schema, rowjson.Options{Binlog: true})
			if err == nil || !strings.Contains(err.Error(), tc.column) {
				t.Fatalf("NewConverter = %v, want an error naming %s", err, tc.column)
			}
		})
	}
}
