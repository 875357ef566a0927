package doris

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
)

const planDoc = `{"code":0,"msg":"success","data":{"partitions":{"11019":{"routings":["be2:9060","be1:9060"],"version":3,"schemaHash":0},"11017":{"routings":["be1:9060","be2:9060"],"version":3,"schemaHash":0,"versionHash":7}},"opaqued_query_plan":"AAEC","status":200}}`

func TestQueryPlan(t *testing.T) {
	f := newFE(t, func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var req map[string]string
		if r.Method != http.MethodPost || r.URL.Path != "/api/sales/orders/_query_plan" || json.Unmarshal(raw, &req) != nil ||
			req["sql"] != "SELECT * FROM `sales`.`orders`" {
			writeJSON(w, `{"code":0,"data":{"status":400,"exception":"POST body must contains [sql] root object"}}`)
			return
		}
		writeJSON(w, planDoc)
	})
	c := testClient(t, ClientConfig{Retries: 1}, f.addr())
	plan, err := PlanQuery(testCtx(t), c, "sales", "orders", SnapshotSQL("sales", "orders", nil, nil, ""))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(plan.TabletIDs(), []int64{11017, 11019}) || plan.OpaquedQueryPlan != "AAEC" {
		t.Fatalf("plan %+v", plan)
	}
	if plan.Tablets[0].Version != 3 || !slices.Equal(plan.Tablets[0].Routings, []string{"be1:9060", "be2:9060"}) {
		t.Fatalf("tablet %+v", plan.Tablets[0])
	}
	_, err = PlanQuery(testCtx(t), c, "sales", "orders", "select nonsense")
	if err == nil || !strings.Contains(err.Error(), "POST body must contains [sql] root object") {
		t.Fatalf("exception not surfaced: %v", err)
	}
}

func TestParseQueryPlanResponseErrors(t *testing.T) {
	cases := map[string]string{
		`{"code":0,"data":{"status":400,"exception":"Select statement must have only one table"}}`: "Select statement must have only one table",
		`{"status":400,"exception":"only support single table filter-prune-scan, but found [ x]"}`: "only support single table filter-prune-scan",
		`{"code":0,"data":{"status":200,"partitions":{"abc":{"routings":[]}}}}`:                    `query plan tablet id "abc"`,
		`{"code":0,"data":{"status":200,"partitions":{"1":{"routings":[]},"01":{"routings":[]}}}}`: "query plan lists tablet 1 twice",
		`{"code":0,"data":{"status":200,"partitions":[]}}`:                                         "invalid Doris query plan response",
		`{"code":500,"msg":"internal"}`:                                                            "Doris query plan request failed",
	}
	for body, want := range cases {
		_, err := ParseQueryPlanResponse([]byte(body))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: want %q, got %v", body, want, err)
		}
	}
	plan, err := ParseQueryPlanResponse([]byte(`{"code":0,"data":{"status":200,"partitions":{}}}`))
	if err != nil || len(plan.Tablets) != 0 {
		t.Fatalf("empty plan: %+v %v", plan, err)
	}
}
