package doris

import (
	"errors"
	"net/http"
	"strings"
	"testing"
)

const schemaDoc = `{"msg":"success","code":0,"data":{"keysType":"UNIQUE_KEYS","properties":[{"name":"name","type":"VARCHAR","comment":"","aggregation_type":""},{"name":"age","type":"INT","comment":"","aggregation_type":"REPLACE"},{"name":"k5","type":"DECIMALV2","precision":"9","scale":"0","comment":"","aggregation_type":""}],"status":200},"count":0}`

func TestSchema(t *testing.T) {
	f := newFE(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.EscapedPath() != "/api/my%20db/orders/_schema" {
			http.Error(w, "path "+r.URL.EscapedPath(), http.StatusNotFound)
			return
		}
		writeJSON(w, schemaDoc)
	})
	c := testClient(t, ClientConfig{Retries: 1}, f.addr())
	s, err := Schema(testCtx(t), c, "my db", "orders")
	if err != nil {
		t.Fatal(err)
	}
	if s.KeysType != "UNIQUE_KEYS" || len(s.Columns) != 3 {
		t.Fatalf("schema %+v", s)
	}
	k5 := s.Columns[2]
	if k5.Name != "k5" || k5.Type != "DECIMALV2" || k5.Precision != 9 || k5.Scale != 0 || s.Columns[1].AggregationType != "REPLACE" {
		t.Fatalf("column %+v", k5)
	}
}

func TestParseSchemaResponseUnwrappedAndNumbers(t *testing.T) {
	s, err := ParseSchemaResponse([]byte(`{"keysType":"DUP_KEYS","properties":[{"name":"d","type":"DECIMAL64","precision":18,"scale":4}],"status":200}`))
	if err != nil || s.KeysType != "DUP_KEYS" || s.Columns[0].Precision != 18 || s.Columns[0].Scale != 4 {
		t.Fatalf("%+v %v", s, err)
	}
}

func TestParseSchemaResponseErrors(t *testing.T) {
	cases := map[string]string{
		`{"code":0,"data":{"status":404,"exception":"table not found"}}`:               "Doris FE's response is not OK, status is 404: table not found",
		`{"code":0,"data":{"keysType":"DUP_KEYS","properties":[]}}`:                    "Doris FE's response is not OK, status is 0",
		`{"code":1,"msg":"Unknown database","data":null}`:                              "Doris schema request failed: code 1: Unknown database",
		`{"code":0,"data":{"status":200,"properties":[{"name":"d","precision":"x"}]}}`: `schema column "d" precision`,
		`{"code":0,"data":{"status":200,"properties":{}}}`:                             "invalid Doris schema response",
		`not json`: "invalid Doris schema response",
	}
	for body, want := range cases {
		_, err := ParseSchemaResponse([]byte(body))
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: want %q, got %v", body, want, err)
		}
	}
}

func TestSchemaStatusErrorIsNotRetried(t *testing.T) {
	f := newFE(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, `{"code":0,"data":{"status":403,"exception":"Access denied"}}`)
	})
	c := testClient(t, ClientConfig{Retries: 3}, f.addr())
	_, err := Schema(testCtx(t), c, "db", "t")
	var se *StatusError
	if !errors.As(err, &se) || se.Status != 403 || f.hits.Load() != 1 {
		t.Fatalf("got %v after %d requests", err, f.hits.Load())
	}
	if !strings.Contains(err.Error(), "/api/db/t/_schema") {
		t.Fatalf("error lacks endpoint: %v", err)
	}
}
