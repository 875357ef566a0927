package feapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// Stream load Status values (StreamLoadContext::to_json).
const (
	statusSuccess      = "Success"
	statusFail         = "Fail"
	statusLabelExists  = "Label Already Exists"
	statusPublishTmout = "Publish Timeout"
)

// loadResult is the BE's stream load answer, fields in Doris's order. A
// group commit load has GroupCommit instead of TwoPhaseCommit and no
// BeginTxnTimeMs/CommitAndPublishTimeMs; ExistingJobStatus comes only with
// "Label Already Exists" and ErrorURL only when rows were filtered.
type loadResult struct {
	TxnID                  int64  `json:"TxnId"`
	Label                  string `json:"Label"`
	Comment                string `json:"Comment"`
	TwoPhaseCommit         string `json:"TwoPhaseCommit,omitempty"`
	GroupCommit            bool   `json:"GroupCommit,omitempty"`
	Status                 string `json:"Status"`
	ExistingJobStatus      string `json:"ExistingJobStatus,omitempty"`
	Message                string `json:"Message"`
	NumberTotalRows        int64  `json:"NumberTotalRows"`
	NumberLoadedRows       int64  `json:"NumberLoadedRows"`
	NumberFilteredRows     int64  `json:"NumberFilteredRows"`
	NumberUnselectedRows   int64  `json:"NumberUnselectedRows"`
	LoadBytes              int64  `json:"LoadBytes"`
	LoadTimeMs             int64  `json:"LoadTimeMs"`
	BeginTxnTimeMs         *int64 `json:"BeginTxnTimeMs,omitempty"`
	StreamLoadPutTimeMs    int64  `json:"StreamLoadPutTimeMs"`
	ReadDataTimeMs         int64  `json:"ReadDataTimeMs"`
	WriteDataTimeMs        int64  `json:"WriteDataTimeMs"`
	CommitAndPublishTimeMs *int64 `json:"CommitAndPublishTimeMs,omitempty"`
	ErrorURL               string `json:"ErrorURL,omitempty"`

	begin, commit int64 // milliseconds, copied into the pointers above
}

// loadMessage is how the BE renders a failed load's status: Status::to_string
// of the FE's TStatus ("[CODE]TStatus: errCode = 2, detailMessage = ...") for
// errors from the FE's transaction calls, the BE's own "[CODE]text" otherwise.
func loadMessage(err error) (status, existing, msg string) {
	if errors.Is(err, errPublishTimeout) {
		return statusPublishTmout, "", "[PUBLISH_TIMEOUT]TStatus: " + err.Error()
	}
	var lu *storage.LabelUsedError
	if errors.As(err, &lu) {
		return statusLabelExists, lu.JobStatus, "[LABEL_ALREADY_EXISTS]" + feStatus(err)
	}
	var fe *feError
	if errors.As(err, &fe) {
		return statusFail, "", "[" + fe.code + "]" + feStatus(fe.err)
	}
	return statusFail, "", err.Error()
}

// errPublishTimeout is the FE's answer when a commit is not yet published
// (FrontendServiceImpl.loadTxnCommit); the load is committed all the same.
var errPublishTimeout = errors.New("transaction commit successfully, BUT data will be visible later")

// feStatus is an FE UserException as the BE prints a TStatus it received.
func feStatus(err error) string {
	return "TStatus: errCode = 2, detailMessage = " + err.Error()
}

// feError marks an error raised by the FE during a BE request (begin,
// commit, 2PC), with the TStatusCode name the FE set.
type feError struct {
	code string
	err  error
}

func (e *feError) Error() string { return e.err.Error() }
func (e *feError) Unwrap() error { return e.err }

func fromFE(err error) error {
	if err == nil {
		return nil
	}
	var lu *storage.LabelUsedError
	if errors.As(err, &lu) {
		return err
	}
	return &feError{code: "ANALYSIS_ERROR", err: err}
}

func writeLoad(a *api, w http.ResponseWriter, res loadResult, err error, start time.Time) {
	res.Status, res.Message = statusSuccess, "OK"
	if err != nil {
		res.Status, res.ExistingJobStatus, res.Message = loadMessage(err)
		a.cfg.Logf("stream load %s: %s: %v", res.Label, res.Status, err)
	}
	if !res.GroupCommit {
		res.BeginTxnTimeMs, res.CommitAndPublishTimeMs = &res.begin, &res.commit
	}
	res.LoadTimeMs = time.Since(start).Milliseconds()
	writePretty(w, res)
}

// writePretty answers as the BE does: rapidjson's pretty writer (4-space
// indent) and a trailing newline, always HTTP 200.
func writePretty(w http.ResponseWriter, v any) {
	b, _ := json.MarshalIndent(v, "", "    ")
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(append(b, '\n'))
}

// restBaseResult is the FE's RestBaseResult for requests it refuses before
// redirecting (missing 100-continue, txn_id, txn_operation).
type restBaseResult struct {
	Status  string `json:"status"`
	Code    string `json:"code"`
	Msg     string `json:"msg"`
	Message string `json:"message"`
}

func writeRestFailure(w http.ResponseWriter, msg string) {
	writeJSON(w, http.StatusOK, restBaseResult{Status: "FAILED", Code: "1", Msg: msg, Message: msg})
}

func since(t time.Time) int64 { return time.Since(t).Milliseconds() }
