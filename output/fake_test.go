package output

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// fakeDoris is an FE that redirects Stream Loads to a "BE" on the same
// server, remembers labels and their transactions, and answers _schema,
// get_load_state and _stream_load_2pc. Tests steer it with the hooks.
type fakeDoris struct {
	t   *testing.T
	srv *httptest.Server

	mu      sync.Mutex
	models  map[string]string // db.table -> keysType
	labels  map[string]*fakeTxn
	nextTxn int64
	loads   []fakeLoad // every BE request, in order
	commits []string   // "commit 12", "abort label=x"
	// failNext answers the next n BE loads with this status code.
	failNextCode, failNext int
	// loadStatus forces a Status for the next BE load ("" = normal).
	loadStatus []string
	// failTarget answers Status Fail to every load into this db.table, or,
	// when failTargetTimes > 0, to that many.
	failTarget      string
	failTargetTimes int
	// loseNext loads the next n loads, then drops the connection unanswered.
	loseNext int
}

type fakeTxn struct {
	id    int64
	state string // PRECOMMITTED, VISIBLE, ABORTED
	rows  []string
	table string
}

type fakeLoad struct {
	Path   string
	Header http.Header
	Body   string
	AuthOK bool
	Expect string
}

func newFakeDoris(t *testing.T) *fakeDoris {
	f := &fakeDoris{t: t, models: map[string]string{}, labels: map[string]*fakeTxn{}, nextTxn: 100}
	mux := http.NewServeMux()
	mux.HandleFunc("PUT /api/{db}/{table}/_stream_load", f.redirect)
	mux.HandleFunc("PUT /be/{db}/{table}/_stream_load", f.load)
	mux.HandleFunc("GET /api/{db}/{table}/_schema", f.schema)
	mux.HandleFunc("GET /api/{db}/get_load_state", f.state)
	mux.HandleFunc("PUT /api/{db}/_stream_load_2pc", f.twoPC)
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeDoris) addr() string { return strings.TrimPrefix(f.srv.URL, "http://") }

func (f *fakeDoris) redirect(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Expect") != "100-continue" {
		writeJSONT(w, map[string]any{"Status": "Fail", "Message": "There is no 100-continue header"})
		return
	}
	// Not reading the body: a client that waits for 100 Continue sends none.
	http.Redirect(w, r, "/be/"+r.PathValue("db")+"/"+r.PathValue("table")+"/_stream_load", http.StatusTemporaryRedirect)
}

func (f *fakeDoris) load(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	u, p, ok := r.BasicAuth()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.loads = append(f.loads, fakeLoad{Path: r.URL.Path, Header: r.Header.Clone(), Body: string(body), AuthOK: ok && u == "root" && p == "pw", Expect: r.Header.Get("Expect")})
	if f.failNext > 0 {
		f.failNext--
		w.WriteHeader(f.failNextCode)
		_, _ = w.Write([]byte("<html>busy</html>"))
		return
	}
	label := r.Header.Get("label")
	target := r.PathValue("db") + "." + r.PathValue("table")
	if target == f.failTarget {
		if f.failTargetTimes > 0 {
			if f.failTargetTimes--; f.failTargetTimes == 0 {
				f.failTarget = ""
			}
		}
		writeJSONT(w, map[string]any{"Status": "Fail", "Label": label, "Message": "[INTERNAL_ERROR]tablet writer failed", "TxnId": 1})
		return
	}
	if len(f.loadStatus) > 0 {
		st := f.loadStatus[0]
		f.loadStatus = f.loadStatus[1:]
		writeJSONT(w, map[string]any{"Status": st, "Label": label, "Message": "forced " + st, "TxnId": 1})
		return
	}
	if old, ok := f.labels[label]; ok && label != "" && old.state != "ABORTED" {
		job := "FINISHED"
		if old.state == "PRECOMMITTED" {
			job = "RUNNING"
		}
		writeJSONT(w, map[string]any{"TxnId": -1, "Label": label, "Status": "Label Already Exists", "ExistingJobStatus": job,
			"Message": fmt.Sprintf("errCode = 2, detailMessage = Label [%s] has already been used, relate to txn [%d]", label, old.id)})
		return
	}
	f.nextTxn++
	txn := &fakeTxn{id: f.nextTxn, state: "VISIBLE", table: target}
	for _, line := range strings.Split(strings.TrimSpace(string(body)), "\n") {
		txn.rows = append(txn.rows, line)
	}
	twoPC := r.Header.Get("two_phase_commit") == "true"
	if twoPC {
		txn.state = "PRECOMMITTED"
	}
	if label != "" {
		f.labels[label] = txn
	}
	if f.loseNext > 0 {
		f.loseNext--
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			conn.Close()
			return
		}
	}
	writeJSONT(w, map[string]any{"TxnId": txn.id, "Label": label, "Status": "Success", "Message": "OK",
		"TwoPhaseCommit": fmt.Sprint(twoPC), "NumberTotalRows": len(txn.rows), "NumberLoadedRows": len(txn.rows)})
}

func (f *fakeDoris) schema(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	m, ok := f.models[r.PathValue("db")+"."+r.PathValue("table")]
	f.mu.Unlock()
	if !ok {
		writeJSONT(w, map[string]any{"code": 1, "msg": "Unknown table", "data": nil})
		return
	}
	writeJSONT(w, map[string]any{"code": 0, "msg": "success", "data": map[string]any{"keysType": m, "status": 200, "properties": []any{}}})
}

func (f *fakeDoris) state(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	st := "UNKNOWN"
	if txn, ok := f.labels[r.URL.Query().Get("label")]; ok {
		st = txn.state
	}
	writeJSONT(w, map[string]any{"code": 0, "msg": "success", "data": st, "count": 0})
}

func (f *fakeDoris) twoPC(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	op, id, label := r.Header.Get("txn_operation"), r.Header.Get("txn_id"), r.Header.Get("label")
	var txn *fakeTxn
	for l, x := range f.labels {
		if fmt.Sprint(x.id) == id || (label != "" && l == label) {
			txn = x
		}
	}
	f.commits = append(f.commits, op+" "+id+label)
	if txn == nil || txn.state != "PRECOMMITTED" {
		writeJSONT(w, map[string]any{"status": "Fail", "msg": "transaction not pre-committed"})
		return
	}
	if op == "commit" {
		txn.state = "VISIBLE"
	} else {
		txn.state = "ABORTED"
	}
	writeJSONT(w, map[string]any{"status": "Success", "msg": fmt.Sprintf("transaction [%d] %s successfully.", txn.id, op)})
}

// visibleRows returns the rows of visible loads into target.
func (f *fakeDoris) visibleRows(target string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, x := range f.labels {
		if x.table == target && x.state == "VISIBLE" {
			out = append(out, x.rows...)
		}
	}
	return out
}

func writeJSONT(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
