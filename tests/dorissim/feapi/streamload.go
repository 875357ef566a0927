package feapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// beLoadPrefix is where the FE redirects stream loads: the simulator's "BE"
// shares the FE HTTP listener.
const beLoadPrefix = "/api/_be/"

// streamLoadRedirect is the FE side of stream load: Doris requires
// Expect: 100-continue and answers 307 towards a BE.
func (a *api) streamLoadRedirect(w http.ResponseWriter, r *http.Request, _ string) {
	if !strings.EqualFold(r.Header.Get("Expect"), "100-continue") {
		writeJSON(w, http.StatusOK, loadResult{Status: "Fail", Message: "There is no 100-continue header"})
		return
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	target := fmt.Sprintf("%s://%s%s%s/%s/_stream_load", scheme, r.Host, beLoadPrefix, r.PathValue("db"), r.PathValue("table"))
	if r.URL.RawQuery != "" {
		target += "?" + r.URL.RawQuery
	}
	http.Redirect(w, r, target, http.StatusTemporaryRedirect)
}

// loadResult is the BE's stream load answer.
type loadResult struct {
	TxnID                  int64  `json:"TxnId"`
	Label                  string `json:"Label"`
	Comment                string `json:"Comment"`
	TwoPhaseCommit         string `json:"TwoPhaseCommit"`
	Status                 string `json:"Status"`
	ExistingJobStatus      string `json:"ExistingJobStatus,omitempty"`
	Message                string `json:"Message"`
	NumberTotalRows        int64  `json:"NumberTotalRows"`
	NumberLoadedRows       int64  `json:"NumberLoadedRows"`
	NumberFilteredRows     int64  `json:"NumberFilteredRows"`
	NumberUnselectedRows   int64  `json:"NumberUnselectedRows"`
	LoadBytes              int64  `json:"LoadBytes"`
	LoadTimeMs             int64  `json:"LoadTimeMs"`
	BeginTxnTimeMs         int64  `json:"BeginTxnTimeMs"`
	StreamLoadPutTimeMs    int64  `json:"StreamLoadPutTimeMs"`
	ReadDataTimeMs         int64  `json:"ReadDataTimeMs"`
	WriteDataTimeMs        int64  `json:"WriteDataTimeMs"`
	CommitAndPublishTimeMs int64  `json:"CommitAndPublishTimeMs"`
	ErrorURL               string `json:"ErrorURL,omitempty"`
}

// streamLoad is the BE side: parse the body and load it in one transaction.
func (a *api) streamLoad(w http.ResponseWriter, r *http.Request, _ string) {
	start := time.Now()
	db, table := r.PathValue("db"), r.PathValue("table")
	label := r.Header.Get("label")
	if label == "" {
		label = newLabel()
	}
	res := loadResult{Label: label, TwoPhaseCommit: "false"}
	body, err := io.ReadAll(r.Body)
	res.LoadBytes = int64(len(body))
	if err != nil {
		a.failLoad(w, res, "Fail", fmt.Errorf("read stream load body for %s.%s: %w", db, table, err), start)
		return
	}
	req, total, filtered, err := a.parseLoad(r.Header, db, table, body)
	res.NumberTotalRows = total
	if err != nil {
		a.failLoad(w, res, "Fail", err, start)
		return
	}
	req.Label = label
	// Rows without a partition are filtered in storage under the same ratio.
	req.FilteredRows = filtered
	req.MaxFilterRatio, _ = strconv.ParseFloat(r.Header.Get("max_filter_ratio"), 64)
	if err := checkFilterRatio(r.Header, total, filtered); err != nil {
		res.NumberFilteredRows = filtered
		a.failLoad(w, res, "Fail", err, start)
		return
	}
	out, err := a.cfg.Backend.Load(context.WithoutCancel(r.Context()), db, table, req)
	res.TxnID = out.TxnID
	res.NumberLoadedRows = out.Loaded
	res.NumberFilteredRows = filtered + out.Filtered
	if err != nil {
		status := "Fail"
		if labelExists(err) {
			status, res.ExistingJobStatus = "Label Already Exists", "FINISHED"
		}
		a.failLoad(w, res, status, err, start)
		return
	}
	writeLoad(w, res, "Success", nil, start)
}

// labelExists recognizes storage's duplicate-label error.
func labelExists(err error) bool {
	var se *storage.Error
	if errors.As(err, &se) && se.Name == "LABEL_ALREADY_EXISTS" {
		return true
	}
	return strings.Contains(err.Error(), "has already been used")
}

func (a *api) failLoad(w http.ResponseWriter, res loadResult, status string, err error, start time.Time) {
	a.cfg.Logf("stream load %s: %s: %v", res.Label, status, err)
	writeLoad(w, res, status, err, start)
}

func writeLoad(w http.ResponseWriter, res loadResult, status string, err error, start time.Time) {
	res.Status, res.Message = status, "OK"
	if err != nil {
		res.Message = err.Error()
	}
	res.LoadTimeMs = time.Since(start).Milliseconds()
	writeJSON(w, http.StatusOK, res)
}

func checkFilterRatio(h http.Header, total, filtered int64) error {
	if filtered == 0 {
		return nil
	}
	ratio := 0.0
	if v := h.Get("max_filter_ratio"); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return fmt.Errorf("invalid max_filter_ratio %q", v)
		}
		ratio = f
	}
	if float64(filtered) > ratio*float64(total) {
		return errors.New("[DATA_QUALITY_ERROR]too many filtered rows")
	}
	return nil
}

func newLabel() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "stream_load_" + hex.EncodeToString(b[:])
}

// parseLoad turns the body into a storage load request. Rows whose field
// count does not match the columns are counted as filtered, as Doris does.
func (a *api) parseLoad(h http.Header, db, table string, body []byte) (storage.LoadRequest, int64, int64, error) {
	req := storage.LoadRequest{
		PartialColumns: strings.EqualFold(h.Get("partial_columns"), "true"),
		MergeType:      strings.ToUpper(strings.TrimSpace(h.Get("merge_type"))),
	}
	if req.MergeType == "" {
		req.MergeType = "APPEND"
	}
	switch req.MergeType {
	case "APPEND", "DELETE", "MERGE":
	default:
		return req, 0, 0, fmt.Errorf("unknown merge_type %q", req.MergeType)
	}
	cols, err := a.loadColumns(h, db, table)
	if err != nil {
		return req, 0, 0, err
	}
	req.Columns = cols
	var rows [][]*string
	var total, filtered int64
	switch strings.ToLower(h.Get("format")) {
	case "", "csv":
		rows, total, filtered, err = parseCSV(h, body, len(cols))
	case "json":
		rows, total, err = parseJSON(h, body, cols)
	default:
		err = fmt.Errorf("unsupported format %q", h.Get("format"))
	}
	req.Rows = rows
	return req, total, filtered, err
}

func (a *api) loadColumns(h http.Header, db, table string) ([]string, error) {
	if v := strings.TrimSpace(h.Get("columns")); v != "" {
		var cols []string
		for _, c := range strings.Split(v, ",") {
			c = strings.Trim(strings.TrimSpace(c), "`")
			if c == "" || strings.ContainsAny(c, "=()") {
				return nil, fmt.Errorf("unsupported columns header entry %q", c)
			}
			cols = append(cols, c)
		}
		return cols, nil
	}
	info, err := a.cfg.Backend.Table(db, table)
	if err != nil {
		return nil, fmt.Errorf("stream load into %s.%s: %w", db, table, err)
	}
	cols := make([]string, len(info.Def.Columns))
	for i, c := range info.Def.Columns {
		cols[i] = c.Name
	}
	// As in Doris, hidden_columns (only without a columns header) adds
	// hidden columns such as __DORIS_DELETE_SIGN__ after the table's own.
	for _, c := range strings.Split(h.Get("hidden_columns"), ",") {
		if c = strings.TrimSpace(c); c != "" {
			if c != storage.DeleteSignColumn {
				return nil, fmt.Errorf("unsupported hidden column %q", c)
			}
			cols = append(cols, c)
		}
	}
	return cols, nil
}
