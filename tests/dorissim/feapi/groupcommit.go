package feapi

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// groupCommitMode decides, as StreamLoadAction::_handle_group_commit does,
// whether a load joins a group commit: sync_mode or async_mode with a body,
// and not a 2PC, partial-column or partition load (those fall back to an
// ordinary load). A user label with group commit is refused.
func groupCommitMode(r *http.Request, label string, twoPC bool) (string, error) {
	mode := strings.ToLower(r.Header.Get("group_commit"))
	switch mode {
	case "", storage.GroupCommitOff:
		return "", nil
	case storage.GroupCommitSync, storage.GroupCommitAsync:
	default:
		return "", errors.New("[INVALID_ARGUMENT]group_commit can only be [async_mode, sync_mode, off_mode]")
	}
	chunked := false
	for _, te := range r.TransferEncoding {
		chunked = chunked || te == "chunked"
	}
	if r.ContentLength == 0 && !chunked {
		return "", nil
	}
	if strings.EqualFold(r.Header.Get("partial_columns"), "true") || r.Header.Get("partitions") != "" ||
		r.Header.Get("temporary_partitions") != "" || twoPC {
		return "", nil
	}
	if label != "" {
		return "", errors.New("[INVALID_ARGUMENT]label and group_commit can't be set at the same time")
	}
	return mode, nil
}

// groupCommitLoad adds the load to the table's open group commit batch and
// answers with that batch's label and txn. sync_mode returns once the batch
// is visible, async_mode as soon as the rows are accepted.
func groupCommitLoad(a *api, w http.ResponseWriter, r *http.Request, res loadResult, mode string, start time.Time) {
	res.TwoPhaseCommit, res.GroupCommit = "", true
	db := r.PathValue("db")
	runLoad(a, w, r, res, start, loadTarget{
		apply: func(table string, req storage.LoadRequest, res *loadResult) (int64, []string, error) {
			out, err := a.cfg.Backend.GroupCommitLoad(db, table, req, mode)
			res.TxnID, res.Label = out.TxnID, out.Label
			return out.Loaded, out.Rejected, err
		},
	})
}
