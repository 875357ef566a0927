package output

import (
	"strings"
	"testing"
)

func TestClassifyLoadResponse(t *testing.T) {
	cases := map[string]struct {
		body string
		want outcome
	}{
		"success":        {`{"TxnId":1003,"Label":"l","Status":"Success","Message":"OK","NumberLoadedRows":2}`, outcomeLoaded},
		"publish":        {`{"TxnId":1003,"Label":"l","Status":"Publish Timeout","Message":"transaction commit successfully, BUT data will be visible later"}`, outcomeLoaded},
		"label finished": {`{"TxnId":-1,"Label":"l","TwoPhaseCommit":"true","Status":"Label Already Exists","ExistingJobStatus":"FINISHED","Message":"errCode = 2, detailMessage = Label [l] has already been used, relate to txn [50985]"}`, outcomeAlreadyLoaded},
		"label running":  {`{"TxnId":-1,"Label":"l","Status":"Label Already Exists","ExistingJobStatus":"RUNNING","Message":"..."}`, outcomeInDoubt},
		"label no job":   {`{"Label":"l","Status":"Label Already Exists","Message":"..."}`, outcomeInDoubt},
		"fail":           {`{"TxnId":1,"Label":"l","Status":"Fail","Message":"[DATA_QUALITY_ERROR]too many filtered rows","ErrorURL":"http://be/api/_load_error_log?file=x"}`, outcomeFailed},
	}
	for name, c := range cases {
		r, err := parseLoadResponse([]byte(c.body))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := r.classify(); got != c.want {
			t.Errorf("%s: outcome %d, want %d", name, got, c.want)
		}
	}
	r, _ := parseLoadResponse([]byte(cases["fail"].body))
	msg := r.failure("db.t", "lbl").Error()
	for _, want := range []string{"db.t", "lbl", "too many filtered rows", "_load_error_log"} {
		if !strings.Contains(msg, want) {
			t.Errorf("failure %q lacks %q", msg, want)
		}
	}
}

func TestParseLoadResponseRejects(t *testing.T) {
	for _, body := range []string{"", "<html>502</html>", `{"Label":"l"}`, `[1]`, `{"Status":"Success"} {}`, `{"Status":1}`, `{"Status":"Success","TxnId":"x"}`} {
		if _, err := parseLoadResponse([]byte(body)); err == nil {
			t.Errorf("%q parsed", body)
		}
	}
}

func TestParseLoadStateAndTxn(t *testing.T) {
	st, err := parseLoadState([]byte(`{"msg":"success","code":0,"data":"VISIBLE","count":0}`))
	if err != nil || st != stateVisible {
		t.Fatalf("state %q, %v", st, err)
	}
	// The FE envelope is read by the shared parser: a numeric string code is
	// a code, and a failure reads as the FE said it.
	if st, err := parseLoadState([]byte(`{"msg":"success","code":"0","data":"visible"}`)); err != nil || st != stateVisible {
		t.Fatalf("string code: state %q, %v", st, err)
	}
	if _, err := parseLoadState([]byte(`{"msg":"unknown database","code":"1"}`)); err == nil || err.Error() != "load state lookup failed: code 1: unknown database" {
		t.Fatalf("string code 1: %v", err)
	}
	for _, body := range []string{`{"msg":"errCode = 2, detailMessage = unknown database","code":1,"data":null}`, `{"code":0,"data":null}`, `nope`, `{"code":0,"data":"VISIBLE"} trailing`} {
		if _, err := parseLoadState([]byte(body)); err == nil {
			t.Errorf("load state %q parsed", body)
		}
	}
	r, err := parseTxnResponse([]byte(`{"status":"Success","msg":"transaction [18037] commit successfully."}`))
	if err != nil || !r.ok() {
		t.Fatalf("txn answer %+v, %v", r, err)
	}
	if r, err := parseTxnResponse([]byte(`{"status":"Fail","msg":"transaction [1] is already aborted"}`)); err != nil || r.ok() {
		t.Fatalf("failed txn answer taken as ok: %+v %v", r, err)
	}
}
