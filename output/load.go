package output

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

// loadStatePoll is how often an in-doubt label's state is asked for.
const loadStatePoll = 300 * time.Millisecond

// loaded is the result of one target's load.
type loaded struct {
	part  *part
	txnID int64 // pre-committed transaction, 0 when unknown
	// precommitted: the rows wait for a commit (two_phase_commit).
	precommitted bool
}

// loader is the Stream Load exchange: a part's load under its label, the
// label's state when an answer is lost, and two-phase commits.
type loader struct {
	conf *config
	tr   *transport
	log  *service.Logger
}

// load loads one part under its label until Doris has its rows, says
// that an earlier load under the label already has them, or fails.
func (o *loader) load(ctx context.Context, p *part) (*loaded, error) {
	path := "/api/" + url.PathEscape(p.db) + "/" + url.PathEscape(p.table) + "/_stream_load"
	h := loadHeaders(o.conf, p)
	// A label freed by an aborted earlier load is loaded again; bounded so
	// that a label that keeps getting aborted fails the batch.
	for round := 0; round < 3; round++ {
		data, err := o.tr.call(ctx, "stream load into "+p.target+" (label "+p.label+")", http.MethodPut, path, h, p.body)
		if err != nil {
			return o.resolveDoubt(ctx, p, err)
		}
		resp, err := parseLoadResponse(data)
		if err != nil {
			return nil, fmt.Errorf("stream load into %s (label %s): %w", p.target, p.label, err)
		}
		switch resp.classify() {
		case outcomeLoaded:
			o.log.Debugf("doris_load: loaded %d rows into %s under label %s (txn %d)", p.rows, p.target, p.label, resp.TxnID)
			return &loaded{part: p, txnID: resp.TxnID, precommitted: o.conf.twoPC}, nil
		case outcomeAlreadyLoaded:
			o.log.Debugf("doris_load: label %s into %s already loaded, skipping", p.label, p.target)
			return &loaded{part: p}, nil
		case outcomeFailed:
			return nil, resp.failure(p.target, p.label)
		}
		state, err := o.waitLoadState(ctx, p.db, p.label)
		if err != nil {
			return nil, fmt.Errorf("stream load into %s (label %s) is in doubt: %w", p.target, p.label, err)
		}
		switch state {
		case stateVisible, stateCommitted:
			return &loaded{part: p}, nil
		case statePrecommitted:
			if !o.conf.twoPC {
				return nil, fmt.Errorf("stream load into %s: label %s belongs to a pre-committed transaction that doris_load did not start with two_phase_commit", p.target, p.label)
			}
			// Left by a run that died before its commit. The label comes from
			// the same rows, so committing it finishes that load.
			return &loaded{part: p, precommitted: true}, nil
		}
		o.log.Debugf("doris_load: earlier load under label %s into %s ended %s; loading again", p.label, p.target, state)
	}
	return nil, fmt.Errorf("stream load into %s (label %s): earlier loads under the label kept being aborted", p.target, p.label)
}

// resolveDoubt asks Doris what became of a load that got no answer (a lost
// connection, a deadline): it may have loaded. A load that did counts as
// loaded, so neither this batch's retry nor a later batch repeats or skips
// it; one that did not fails with its own error.
func (o *loader) resolveDoubt(ctx context.Context, p *part, cause error) (*loaded, error) {
	var refused *httpError
	if p.label == "" || ctx.Err() != nil || (errors.As(cause, &refused) && !doris.RetryableStatus(refused.status)) {
		return nil, cause // no label to ask for, shutting down, or refused outright
	}
	state, err := o.waitLoadState(ctx, p.db, p.label)
	if err != nil {
		return nil, fmt.Errorf("%w; the load is in doubt, its label's state is unknown: %w", cause, err)
	}
	switch state {
	case stateVisible, stateCommitted:
		o.log.Debugf("doris_load: unanswered load under label %s into %s is %s", p.label, p.target, state)
		return &loaded{part: p}, nil
	case statePrecommitted:
		if o.conf.twoPC {
			return &loaded{part: p, precommitted: true}, nil
		}
	}
	return nil, cause
}

// waitLoadState polls the label's state until it stops moving: VISIBLE,
// COMMITTED, PRECOMMITTED, ABORTED or UNKNOWN (no such label).
func (o *loader) waitLoadState(ctx context.Context, db, label string) (string, error) {
	deadline := time.Now().Add(o.conf.stateWait)
	for {
		state, err := o.loadState(ctx, db, label)
		if err != nil {
			return "", err
		}
		if state != statePrepare {
			return state, nil
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("label %s still %s after %s", label, state, o.conf.stateWait)
		}
		if err := doris.Sleep(ctx, loadStatePoll); err != nil {
			return "", err
		}
	}
}

func (o *loader) loadState(ctx context.Context, db, label string) (string, error) {
	path := "/api/" + url.PathEscape(db) + "/get_load_state?label=" + url.QueryEscape(label)
	data, err := o.tr.call(ctx, "load state of label "+label, http.MethodGet, path, nil, nil)
	if err != nil {
		return "", err
	}
	return parseLoadState(data)
}

// finishTxn commits or aborts a pre-committed load, by transaction id when
// the load answered one, else by label.
func (o *loader) finishTxn(ctx context.Context, l *loaded, operation string) error {
	path := "/api/" + url.PathEscape(l.part.db) + "/_stream_load_2pc"
	h := http.Header{}
	setRaw(h, "txn_operation", operation)
	if l.txnID > 0 {
		setRaw(h, "txn_id", strconv.FormatInt(l.txnID, 10))
	} else {
		setRaw(h, "label", l.part.label)
	}
	what := fmt.Sprintf("%s of label %s into %s", operation, l.part.label, l.part.target)
	data, err := o.tr.call(ctx, what, http.MethodPut, path, h, nil)
	if err == nil {
		var r *txnResponse
		if r, err = parseTxnResponse(data); err == nil && !r.ok() {
			err = fmt.Errorf("%s: %s: %s", what, r.Status, r.Msg)
		}
	}
	if err == nil || operation != txnCommit {
		return err
	}
	// A commit whose answer was lost, or a retried commit, finds the
	// transaction already committed: the state says so.
	state, serr := o.loadState(ctx, l.part.db, l.part.label)
	if serr == nil && (state == stateVisible || state == stateCommitted) {
		return nil
	}
	return err
}

const (
	txnCommit = "commit"
	txnAbort  = "abort"
)

// abortAll aborts what was pre-committed; the batch fails anyway, so abort
// errors are only logged (Doris aborts a forgotten pre-commit on timeout).
func (o *loader) abortAll(ls []*loaded, cause error) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, l := range ls {
		if !l.precommitted {
			continue
		}
		if err := o.finishTxn(ctx, l, txnAbort); err != nil {
			o.log.Warnf("doris_load: %v", err)
		}
	}
	return cause
}
