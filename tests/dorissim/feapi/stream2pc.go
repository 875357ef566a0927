package feapi

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// streamLoad2PCRedirect is the FE side of _stream_load_2pc: it checks the
// headers (LoadAction.executeStreamLoad2PC) and redirects to a BE.
func streamLoad2PCRedirect(a *api, w http.ResponseWriter, r *http.Request, _ string) {
	if r.Header.Get("txn_id") == "" && r.Header.Get("label") == "" {
		writeRestFailure(w, "No transaction id or label selected.")
		return
	}
	if r.Header.Get("txn_operation") == "" {
		writeRestFailure(w, "No transaction operation('commit' or 'abort') selected.")
		return
	}
	http.Redirect(w, r, beURL(a, r, "/api/"+r.PathValue("db")+"/_stream_load_2pc"), http.StatusTemporaryRedirect)
}

// status2PC is the BE's 2PC answer: {"status","msg"}, HTTP 200 either way.
type status2PC struct {
	Status string `json:"status"`
	Msg    string `json:"msg"`
}

// streamLoad2PC is StreamLoad2PCAction::handle: it names what it operated
// on ("label [l] transaction [id] commit successfully.") and reports FE
// refusals as ANALYSIS_ERROR with the TStatus text.
func streamLoad2PC(a *api, w http.ResponseWriter, r *http.Request, _ string) {
	db := r.PathValue("db")
	label, rawID := r.Header.Get("label"), r.Header.Get("txn_id")
	var msg strings.Builder
	if label != "" {
		fmt.Fprintf(&msg, "label [%s] ", label)
	}
	var txnID int64
	if rawID != "" {
		fmt.Fprintf(&msg, "transaction [%s] ", rawID)
		id, err := strconv.ParseUint(rawID, 10, 63)
		if err != nil {
			writePretty(w, status2PC{Status: "INTERNAL_ERROR",
				Msg: fmt.Sprintf("convert txn_id [%s] failed, reason=stoull", rawID)})
			return
		}
		txnID = int64(id)
	}
	op := r.Header.Get("txn_operation")
	if op != "commit" && op != "abort" {
		writePretty(w, status2PC{Status: "INTERNAL_ERROR", Msg: "transaction operation should be 'commit' or 'abort'"})
		return
	}
	msg.WriteString(op + " successfully.")
	if _, err := a.cfg.Backend.Txn2PC(db, txnID, label, op); err != nil {
		a.cfg.Logf("stream load 2pc %s %s%s: %v", op, label, rawID, err)
		writePretty(w, status2PC{Status: "ANALYSIS_ERROR", Msg: feStatus(err)})
		return
	}
	writePretty(w, status2PC{Status: "Success", Msg: msg.String()})
}

// loadState is GET /api/{db}/get_load_state?label=: the state of the
// label's latest transaction (GetStreamLoadState).
func loadState(a *api, w http.ResponseWriter, r *http.Request, _ string) {
	label := r.URL.Query().Get("label")
	if label == "" {
		writeJSON(w, http.StatusOK, envelope{Msg: "Bad Request", Code: 403, Data: "No label selected"})
		return
	}
	st, err := a.cfg.Backend.LabelState(r.PathValue("db"), label)
	if err != nil {
		writeJSON(w, http.StatusOK, envelope{Msg: "Error", Code: 1, Data: err.Error()})
		return
	}
	ok(w, string(st))
}

// beURL is where the FE redirects a request: the simulator's "BE" shares
// the FE listener under beLoadPrefix.
func beURL(a *api, r *http.Request, path string) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	target := fmt.Sprintf("%s://%s%s%s", scheme, r.Host, strings.TrimSuffix(beLoadPrefix, "/"), path[len("/api"):])
	if r.URL.RawQuery != "" {
		target += "?" + r.URL.RawQuery
	}
	return target
}
