package feapi

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestStreamLoad2PCHandler(t *testing.T) {
	srv, _ := newTestServer(t)
	url := srv.URL + "/api/sales/_stream_load_2pc"
	cases := []struct {
		hdr  map[string]string
		want status2PC
	}{
		{map[string]string{"txn_id": "42", "txn_operation": "commit"}, status2PC{"Success", "transaction [42] commit successfully."}},
		{map[string]string{"label": "l", "txn_id": "42", "txn_operation": "abort"}, status2PC{"Success", "label [l] transaction [42] abort successfully."}},
		{map[string]string{"txn_id": "7", "txn_operation": "commit"}, status2PC{"ANALYSIS_ERROR", "TStatus: errCode = 2, detailMessage = transaction [7] not found"}},
		{map[string]string{"txn_id": "x1", "txn_operation": "commit"}, status2PC{"INTERNAL_ERROR", "convert txn_id [x1] failed, reason=stoull"}},
		{map[string]string{"txn_id": "42", "txn_operation": "Commit"}, status2PC{"INTERNAL_ERROR", "transaction operation should be 'commit' or 'abort'"}},
	}
	for _, c := range cases {
		_, data := do(t, "PUT", url, "", c.hdr)
		var got status2PC
		if err := json.Unmarshal(data, &got); err != nil || got != c.want {
			t.Errorf("%v: got %s (%v), want %+v", c.hdr, data, err, c.want)
		}
	}
	for hdr, msg := range map[string]string{"txn_operation": "No transaction id or label selected.", "txn_id": "No transaction operation('commit' or 'abort') selected."} {
		_, data := do(t, "PUT", url, "", map[string]string{hdr: "42"})
		var got restBaseResult
		if err := json.Unmarshal(data, &got); err != nil || got.Status != "FAILED" || got.Msg != msg {
			t.Errorf("only %s: %s (%v)", hdr, data, err)
		}
	}
}

func TestLoadStateHandler(t *testing.T) {
	srv, _ := newTestServer(t)
	do(t, "PUT", srv.URL+"/api/sales/orders/_stream_load", "1\ta\t1\n", map[string]string{"label": "done", "Expect": "100-continue"})
	for label, want := range map[string]string{"done": `"VISIBLE"`, "other": `"UNKNOWN"`} {
		_, data := do(t, "GET", srv.URL+"/api/sales/get_load_state?label="+label, "", nil)
		var env envelopeResp
		if err := json.Unmarshal(data, &env); err != nil || env.Code != 0 || string(env.Data) != want {
			t.Errorf("state of %s: %s (%v)", label, data, err)
		}
	}
	_, data := do(t, "GET", srv.URL+"/api/sales/get_load_state", "", nil)
	if !strings.Contains(string(data), `"data":"No label selected"`) {
		t.Errorf("no label: %s", data)
	}
}

func TestGroupCommitHeaderRules(t *testing.T) {
	srv, b := newTestServer(t)
	url := srv.URL + "/api/sales/orders/_stream_load"
	_, data := do(t, "PUT", url, "1\ta\t1\n", map[string]string{"Expect": "100-continue", "group_commit": "async_mode"})
	var res map[string]any
	json.Unmarshal(data, &res)
	if res["GroupCommit"] != true || res["TxnId"] != 43.0 || res["Label"] != "group_commit_0123456789abcdef_0123456789abcdef" || len(b.loads) != 1 {
		t.Fatalf("group commit answer: %s", data)
	}
	_, data = do(t, "PUT", url, "1\ta\t1\n", map[string]string{"Expect": "100-continue", "group_commit": "sync_mode", "partial_columns": "true"})
	if !strings.Contains(string(data), `"TwoPhaseCommit": "false"`) || strings.Contains(string(data), "GroupCommit") {
		t.Errorf("partial columns load took group commit: %s", data)
	}
}
