package output

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

// Stream Load result statuses, as the BE spells them.
const (
	statusSuccess        = "Success"
	statusPublishTimeout = "Publish Timeout"
	statusLabelExists    = "Label Already Exists"
	existingFinished     = "FINISHED"
)

// loadResponse is the part of a Stream Load answer that decides the outcome.
// HTTP 200 says nothing: only Status does.
type loadResponse struct {
	TxnID             int64  `json:"TxnId"`
	Label             string `json:"Label"`
	TwoPhaseCommit    string `json:"TwoPhaseCommit"`
	Status            string `json:"Status"`
	ExistingJobStatus string `json:"ExistingJobStatus"`
	Message           string `json:"Message"`
	NumberTotalRows   int64  `json:"NumberTotalRows"`
	NumberLoadedRows  int64  `json:"NumberLoadedRows"`
	NumberFiltered    int64  `json:"NumberFilteredRows"`
	ErrorURL          string `json:"ErrorURL"`
}

// outcome is what a Stream Load answer means for the batch.
type outcome int

const (
	outcomeLoaded        outcome = iota // this request loaded the rows (or pre-committed them)
	outcomeAlreadyLoaded                // an earlier load under the label finished
	outcomeInDoubt                      // the label is taken by a load whose end is unknown: ask its state
	outcomeFailed                       // nothing was loaded; the label may be reused
)

// parseLoadResponse decodes a Stream Load answer. It rejects bodies that are
// not one JSON object or that lack a Status, so that a proxy's error page is
// never taken for a result.
func parseLoadResponse(body []byte) (*loadResponse, error) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 || body[0] != '{' {
		return nil, fmt.Errorf("stream load answer is not a JSON object: %s", doris.Snippet(body))
	}
	var r loadResponse
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("stream load answer: %w: %s", err, doris.Snippet(body))
	}
	if dec.More() {
		return nil, fmt.Errorf("stream load answer has trailing data: %s", doris.Snippet(body))
	}
	if r.Status == "" {
		return nil, fmt.Errorf("stream load answer has no Status: %s", doris.Snippet(body))
	}
	return &r, nil
}

// classify maps a parsed answer to its outcome. "Publish Timeout" means the
// transaction committed and becomes visible later, so it is a success.
func (r *loadResponse) classify() outcome {
	switch {
	case strings.EqualFold(r.Status, statusSuccess), strings.EqualFold(r.Status, statusPublishTimeout):
		return outcomeLoaded
	case strings.EqualFold(r.Status, statusLabelExists):
		if strings.EqualFold(r.ExistingJobStatus, existingFinished) {
			return outcomeAlreadyLoaded
		}
		return outcomeInDoubt
	default:
		return outcomeFailed
	}
}

// failure describes a failed load with Doris's own words and the label.
func (r *loadResponse) failure(target, label string) error {
	msg := fmt.Sprintf("stream load into %s (label %s) failed: %s: %s", target, label, r.Status, r.Message)
	if r.ErrorURL != "" {
		msg += " (errors: " + r.ErrorURL + ")"
	}
	return errors.New(msg)
}

// txnResponse is the answer of /api/{db}/_stream_load_2pc.
type txnResponse struct {
	Status string `json:"status"`
	Msg    string `json:"msg"`
}

func parseTxnResponse(body []byte) (*txnResponse, error) {
	var r txnResponse
	if err := json.Unmarshal(bytes.TrimSpace(body), &r); err != nil {
		return nil, fmt.Errorf("two-phase commit answer: %w: %s", err, doris.Snippet(body))
	}
	if r.Status == "" {
		return nil, fmt.Errorf("two-phase commit answer has no status: %s", doris.Snippet(body))
	}
	return &r, nil
}

func (r *txnResponse) ok() bool { return strings.EqualFold(r.Status, statusSuccess) }

// Transaction states reported by /api/{db}/get_load_state.
const (
	statePrepare      = "PREPARE"
	statePrecommitted = "PRECOMMITTED"
	stateCommitted    = "COMMITTED"
	stateVisible      = "VISIBLE"
)

// parseLoadState reads the FE envelope {"msg":…,"code":0,"data":"VISIBLE"}.
func parseLoadState(body []byte) (string, error) {
	env, err := doris.ParseEnvelope(body)
	if err != nil {
		return "", fmt.Errorf("load state answer: %w: %s", err, doris.Snippet(body))
	}
	if err := env.Err(); err != nil {
		return "", fmt.Errorf("load state lookup failed: %w", err)
	}
	var state string
	if err := json.Unmarshal(env.Data, &state); err != nil || state == "" {
		return "", fmt.Errorf("load state answer has no state: %s", doris.Snippet(body))
	}
	return strings.ToUpper(state), nil
}
