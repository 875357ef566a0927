package doris

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

func TestCatalogListsAndSkipsSystemDatabases(t *testing.T) {
	f := newFE(t, func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Stmt string }
		_ = json.NewDecoder(r.Body).Decode(&req)
		switch req.Stmt {
		case "SHOW DATABASES":
			writeJSON(w, resultSet(`[{"name":"Database","type":"CHAR"}]`, `[["information_schema"],["mysql"],["shop"],["__internal_schema"],["odd db"]]`))
		case "SHOW TABLES FROM `shop`":
			writeJSON(w, resultSet(`[{"name":"Tables_in_shop","type":"CHAR"}]`, `[["orders"],["customers"]]`))
		default:
			writeJSON(w, `{"msg":"errCode = 2, detailMessage = Unknown database","code":1,"data":null,"count":0}`)
		}
	})
	c := testClient(t, ClientConfig{Retries: 1}, f.addr())
	dbs, err := c.ListDatabases(testCtx(t))
	if err != nil || strings.Join(dbs, ",") != "shop,odd db" {
		t.Fatalf("databases %q %v", dbs, err)
	}
	tables, err := c.ListTables(testCtx(t), "shop")
	if err != nil || strings.Join(tables, ",") != "orders,customers" {
		t.Fatalf("tables %q %v", tables, err)
	}
	for table, want := range map[string]bool{"orders": true, "gone": false} {
		if ok, err := c.TableExists(testCtx(t), "shop", table); err != nil || ok != want {
			t.Fatalf("TableExists(%s) = %v %v", table, ok, err)
		}
	}
	if ok, err := c.TableExists(testCtx(t), "nodb", "t"); err != nil || ok {
		t.Fatalf("a table of a missing database exists: %v %v", ok, err)
	}
}

func TestFirstColumnRejectsNonText(t *testing.T) {
	for _, body := range []string{
		resultSet(`[{"name":"Database","type":"CHAR"}]`, `[[null]]`),
		resultSet(`[{"name":"Database","type":"CHAR"}]`, `[[["nested"]]]`),
		resultSet(`[]`, `[["x"]]`),
	} {
		res, err := ParseStatementResponse([]byte(body))
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		if _, err := FirstColumn(res); err == nil {
			t.Fatalf("accepted %s", body)
		}
	}
}
