package feapi

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// Config configures the FE HTTP API.
type Config struct {
	Backend Backend
	Hooks   Hooks
	// BERouting is the "host:port" reported as the BE of every tablet in
	// query plans (a Thrift address; Flight reads never dial it).
	BERouting string
	// Stats, when set, answers GET /api/_sim/stats (simulator only): the
	// requests counted so far.
	Stats func() any
	Logf  func(format string, args ...any)
}

type api struct {
	cfg       Config
	errorLogs errorLogs
}

// New returns the FE HTTP handler.
func New(cfg Config) http.Handler {
	if cfg.BERouting == "" {
		cfg.BERouting = "127.0.0.1:9060"
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	a := &api{cfg: cfg}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "Doris FE simulator") })
	mux.HandleFunc("GET /api/tso", a.auth(tso))
	mux.HandleFunc("POST /api/query/default_cluster/information_schema", a.auth(query))
	mux.HandleFunc("GET /api/{db}/{table}/_schema", a.auth(schema))
	mux.HandleFunc("GET /api/{catalog}/{db}/{table}/_schema", a.auth(schema))
	mux.HandleFunc("POST /api/{db}/{table}/_query_plan", a.auth(queryPlan))
	mux.HandleFunc("GET /api/{db}/{table}/_query_plan", a.auth(queryPlan))
	mux.HandleFunc("PUT /api/{db}/{table}/_stream_load", a.auth(streamLoadRedirect))
	mux.HandleFunc("PUT "+beLoadPrefix+"{db}/{table}/_stream_load", a.auth(streamLoad))
	mux.HandleFunc("PUT /api/{db}/_stream_load_2pc", a.auth(streamLoad2PCRedirect))
	mux.HandleFunc("PUT /api/{db}/{table}/_stream_load_2pc", a.auth(streamLoad2PCRedirect))
	mux.HandleFunc("PUT "+beLoadPrefix+"{db}/_stream_load_2pc", a.auth(streamLoad2PC))
	mux.HandleFunc("GET /api/{db}/get_load_state", a.auth(loadState))
	mux.HandleFunc("GET /api/_load_error_log", a.errorLogs.serve)
	mux.HandleFunc("POST /api/_sim/faults", a.auth(setFaults))
	mux.HandleFunc("DELETE /api/_sim/faults", a.auth(clearFaults))
	mux.HandleFunc("GET /api/_sim/stats", a.auth(stats))
	return mux
}

// auth enforces HTTP Basic auth, which Doris requires on every API call.
func (a *api) auth(h func(a *api, w http.ResponseWriter, r *http.Request, user string)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		user, pass, ok := r.BasicAuth()
		if !ok || !a.cfg.Backend.Authenticate(user, pass) {
			w.Header().Set("WWW-Authenticate", `Basic realm="doris"`)
			writeJSON(w, http.StatusUnauthorized, envelope{
				Msg: "Unauthorized", Code: 401,
				Data: fmt.Sprintf("Access denied for user '%s' (using password: %s)", user, yesNo(pass != "")),
			})
			return
		}
		h(a, w, r, user)
	}
}

func yesNo(b bool) string {
	if b {
		return "YES"
	}
	return "NO"
}

// envelope is the FE's common response shape.
type envelope struct {
	Msg   string `json:"msg"`
	Code  int    `json:"code"`
	Data  any    `json:"data"`
	Count int    `json:"count"`
}

func ok(w http.ResponseWriter, data any) {
	writeJSON(w, http.StatusOK, envelope{Msg: "success", Code: 0, Data: data})
}

// fail answers a Doris common error: HTTP 200, code 1, the text in msg.
func fail(w http.ResponseWriter, err error) {
	writeJSON(w, http.StatusOK, envelope{Msg: err.Error(), Code: 1, Data: err.Error()})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
