package doris

import (
	"net/http"
	"strings"
	"testing"
)

func TestTSOHelpersWorkedExample(t *testing.T) {
	const tso = 461373440032243713
	if PhysicalMs(tso) != 1760000000123 || tso&tsoLogicalMask != 1 {
		t.Fatalf("split: %d %d", PhysicalMs(tso), tso&tsoLogicalMask)
	}
	if Compose(1760000000123, 1) != tso {
		t.Fatalf("compose: %d", Compose(1760000000123, 1))
	}
}

func TestParseTSOResponse(t *testing.T) {
	info, err := ParseTSOResponse([]byte(`{"code":0,"msg":"success","data":{"window_end_physical_time":1625097600000,"current_tso":461373440032243713,"current_tso_physical_time":1760000000123,"current_tso_logical_counter":1}}`))
	if err != nil {
		t.Fatal(err)
	}
	if info.TSO != 461373440032243713 || info.PhysicalMs != 1760000000123 {
		t.Fatalf("got %+v", info)
	}
	// Without current_tso the TSO is rebuilt from its parts.
	info, err = ParseTSOResponse([]byte(`{"code":0,"data":{"current_tso_physical_time":"1760000000123","current_tso_logical_counter":5}}`))
	if err != nil || info.TSO != Compose(1760000000123, 5) {
		t.Fatalf("got %+v %v", info, err)
	}
}

func TestParseTSOResponseErrors(t *testing.T) {
	cases := map[string]string{
		`{"code":1,"msg":"FE not ready","data":null}`:                       "Failed to get current Doris TSO: FE not ready",
		`{"code":0,"msg":"success","data":{}}`:                              "Missing current_tso_physical_time in TSO response",
		`{"code":0,"data":{"current_tso_physical_time":null}}`:              "Missing current_tso_physical_time in TSO response",
		`{"code":0,"msg":"success"}`:                                        "Missing current_tso_physical_time in TSO response",
		`{"code":0,"data":{"current_tso_physical_time":0}}`:                 "Invalid current_tso_physical_time: 0",
		`{"code":0,"data":{"current_tso_physical_time":-5}}`:                "Invalid current_tso_physical_time: -5",
		`{"code":0,"data":{"current_tso_physical_time":"abc"}}`:             `Invalid current_tso_physical_time: "abc"`,
		`{"code":0,"data":{"current_tso_physical_time":1.5}}`:               "Invalid current_tso_physical_time: 1.5",
		`{"code":0,"data":{"current_tso_physical_time":1e400}}`:             "Invalid current_tso_physical_time: 1e400",
		`<html>bad gateway</html>`:                                          "Invalid Doris TSO response",
		`{"code":0,"data":`:                                                 "Invalid Doris TSO response",
		`{"code":0,"data":[1,2]}`:                                           "Invalid Doris TSO response",
		`{"code":"x"}`:                                                      "Invalid Doris TSO response",
		`{"code":0,"data":{"current_tso_physical_time":99999999999999999}}`: "Invalid current_tso_physical_time",
	}
	for body, want := range cases {
		_, err := ParseTSOResponse([]byte(body))
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: want %q, got %v", body, want, err)
		}
	}
}

func TestCurrentTSOCodeErrorTriesNextFE(t *testing.T) {
	notReady := newFE(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, `{"code":403,"msg":"FE not ready","data":null}`)
	})
	good := newFE(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/api/tso" {
			http.Error(w, "wrong endpoint", http.StatusNotFound)
			return
		}
		writeJSON(w, tsoBody(1760000000123))
	})
	c := testClient(t, ClientConfig{Retries: 2}, notReady.addr(), good.addr())
	info, err := CurrentTSO(testCtx(t), c)
	if err != nil {
		t.Fatal(err)
	}
	if info.TSO != Compose(1760000000123, 1) {
		t.Fatalf("tso %d", info.TSO)
	}
	c2 := testClient(t, ClientConfig{Retries: 1}, notReady.addr())
	_, err = CurrentTSO(testCtx(t), c2)
	if err == nil || !strings.Contains(err.Error(), "Failed to get current Doris TSO: FE not ready") {
		t.Fatalf("got %v", err)
	}
}
