package feapi

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"regexp"
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
func streamLoadRedirect(a *api, w http.ResponseWriter, r *http.Request, _ string) {
	if !strings.EqualFold(r.Header.Get("Expect"), "100-continue") {
		writeRestFailure(w, "There is no 100-continue header")
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

// streamLoad is the BE side. As in Doris the transaction (and the label)
// is begun from the headers, before the body is read; the body is then
// parsed and loaded in that transaction.
func streamLoad(a *api, w http.ResponseWriter, r *http.Request, _ string) {
	start := time.Now()
	db := r.PathValue("db")
	// TxnId stays -1 (the BE's default_txn_id) until a txn is begun.
	res := loadResult{TxnID: -1, Label: r.Header.Get("label"), Comment: r.Header.Get("comment"), TwoPhaseCommit: "false"}
	twoPC := r.Header.Get("two_phase_commit") == "true"
	if twoPC {
		res.TwoPhaseCommit = "true"
	}
	if takeLoadFault(a, LoadFaultHTTPError) {
		http.Error(w, "simulated BE failure before the load began", http.StatusInternalServerError)
		return
	}
	mode, err := groupCommitMode(r, res.Label, twoPC)
	if err != nil {
		writeLoad(a, w, res, err, start)
		return
	}
	if mode != "" {
		groupCommitLoad(a, w, r, res, mode, start)
		return
	}
	if res.Label == "" {
		res.Label = newLabel()
	}
	begin := time.Now()
	lt, err := a.cfg.Backend.BeginLoad(db, res.Label)
	res.begin = since(begin)
	if err != nil {
		writeLoad(a, w, res, fromFE(err), start)
		return
	}
	res.TxnID = lt.TxnID()
	runLoad(a, w, r, res, start, loadTarget{
		abort: lt.Abort,
		apply: func(table string, req storage.LoadRequest, res *loadResult) (int64, []string, error) {
			req.Label, req.TwoPhaseCommit = res.Label, twoPC
			out, err := lt.Run(table, req)
			return out.Loaded, out.Rejected, err
		},
	})
}

// loadTarget is where a stream load's rows go: the txn begun from its
// headers, or (group commit) the table's open batch, which begins nothing
// before the body is read.
type loadTarget struct {
	// abort ends what was begun when the body cannot be loaded; nil when
	// nothing was.
	abort func(reason string)
	// apply loads the parsed rows, filling what the target decides in res
	// (txn and label for group commit), and returns the rows loaded and the
	// error-log lines of the rows storage filtered.
	apply func(table string, req storage.LoadRequest, res *loadResult) (int64, []string, error)
}

// runLoad is the one stream load flow after the target is chosen: read and
// parse the body, load it (storage applies max_filter_ratio to every
// filtered row, see storage.LoadRequest), and answer.
func runLoad(a *api, w http.ResponseWriter, r *http.Request, res loadResult, start time.Time, tgt loadTarget) {
	db, table := r.PathValue("db"), r.PathValue("table")
	req, filtered, err := readLoad(a, r, &res, db, table)
	if err != nil {
		recordFiltered(a, r, &res, filtered)
		if tgt.abort != nil {
			tgt.abort(err.Error())
		}
		writeLoad(a, w, res, err, start)
		return
	}
	write := time.Now()
	loaded, rejected, err := tgt.apply(table, req, &res)
	res.WriteDataTimeMs = since(write)
	res.commit = res.WriteDataTimeMs
	recordFiltered(a, r, &res, append(filtered, rejected...))
	if err == nil {
		res.NumberLoadedRows = loaded
	}
	answerLoad(a, w, res, err, start)
}

// recordFiltered reports the rows filtered by the parser and by storage
// (rows that fit no partition) in NumberFilteredRows and ErrorURL, on
// success and on failure alike.
func recordFiltered(a *api, r *http.Request, res *loadResult, lines []string) {
	if len(lines) == 0 {
		return
	}
	res.NumberFilteredRows = int64(len(lines))
	res.ErrorURL = a.errorLogs.put(r, lines)
}

// answerLoad writes the answer of a load that ran, applying a pending
// fault to a successful one: a lost answer drops the connection after the
// commit, a publish timeout reports the committed load as Doris does when
// publishing lags.
func answerLoad(a *api, w http.ResponseWriter, res loadResult, err error, start time.Time) {
	if err == nil && takeLoadFault(a, LoadFaultLostAnswer) {
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, herr := hj.Hijack(); herr == nil {
				conn.Close()
				return
			}
		}
	}
	if err == nil && takeLoadFault(a, LoadFaultPublishTimeout) {
		err = errPublishTimeout
	}
	writeLoad(a, w, res, err, start)
}

func takeLoadFault(a *api, kind string) bool {
	return a.cfg.Hooks != nil && a.cfg.Hooks.TakeLoadFault(kind)
}

// readLoad reads and parses the body, filling the byte and row counts.
func readLoad(a *api, r *http.Request, res *loadResult, db, table string) (storage.LoadRequest, []string, error) {
	read := time.Now()
	body, err := io.ReadAll(r.Body)
	res.ReadDataTimeMs = since(read)
	res.LoadBytes = int64(len(body))
	if err != nil {
		return storage.LoadRequest{}, nil, fmt.Errorf("read stream load body for %s.%s: %w", db, table, err)
	}
	put := time.Now()
	req, total, filtered, err := parseLoad(a, r.Header, db, table, body)
	res.StreamLoadPutTimeMs = since(put)
	res.NumberTotalRows = total
	if err == nil {
		// Storage judges these rows and the rows that fit no partition
		// together against the ratio, once.
		req.FilteredRows = int64(len(filtered))
		req.MaxFilterRatio = filterRatio(r.Header.Get("max_filter_ratio"))
	}
	return req, filtered, err
}

// filterRatioPrefix is the longest prefix that strtod reads as a decimal
// number once it has skipped leading white space.
var filterRatioPrefix = regexp.MustCompile(`^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?`)

// filterRatio reads the max_filter_ratio header as the BE does
// (StreamLoadAction: ctx->max_filter_ratio = strtod(header, nullptr)): the
// leading number, 0 when there is none; a bad value is not an error.
func filterRatio(v string) float64 {
	f, _ := strconv.ParseFloat(filterRatioPrefix.FindString(strings.TrimLeft(v, " \t\n\v\f\r")), 64)
	return f
}

// newLabel is the BE's generate_uuid_string: a random UUID.
func newLabel() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// parseLoad turns the body into a storage load request. Rows whose field
// count does not match the columns are counted as filtered, as Doris does.
func parseLoad(a *api, h http.Header, db, table string, body []byte) (storage.LoadRequest, int64, []string, error) {
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
		return req, 0, nil, fmt.Errorf("unknown merge_type %q", req.MergeType)
	}
	cols, err := loadColumns(a, h, db, table)
	if err != nil {
		return req, 0, nil, err
	}
	req.SequenceSource = strings.TrimSpace(h.Get("function_column.sequence_col"))
	req.Columns = cols
	var rows [][]*string
	var total int64
	var filtered []string
	switch strings.ToLower(h.Get("format")) {
	case "", "csv":
		rows, total, filtered, err = parseCSV(h, body, len(cols))
	case "json":
		rows, total, err = parseJSON(h, body, cols, jsonDefaults(a, db, table, cols))
	default:
		err = fmt.Errorf("unsupported format %q", h.Get("format"))
	}
	req.Rows = rows
	return req, total, filtered, err
}

func loadColumns(a *api, h http.Header, db, table string) ([]string, error) {
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
