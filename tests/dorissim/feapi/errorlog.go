package feapi

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"sync"
)

// maxErrorLogs bounds the error logs kept; older ones are dropped first.
const maxErrorLogs = 256

// errorLogs keeps the rejected-row logs that ErrorURL points at, as the BE
// keeps its load error log files.
type errorLogs struct {
	mu    sync.Mutex
	files map[string]string
	order []string
}

// put stores the log and returns its URL on the listener that served r.
func (e *errorLogs) put(r *http.Request, lines []string) string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	name := "__shard_0/error_log_insert_stmt_" + hex.EncodeToString(b[:])
	e.mu.Lock()
	if e.files == nil {
		e.files = map[string]string{}
	}
	e.files[name] = strings.Join(lines, "\n") + "\n"
	e.order = append(e.order, name)
	if len(e.order) > maxErrorLogs {
		delete(e.files, e.order[0])
		e.order = e.order[1:]
	}
	e.mu.Unlock()
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return fmt.Sprintf("%s://%s/api/_load_error_log?file=%s", scheme, r.Host, name)
}

// serve is GET /api/_load_error_log?file=: the rejected rows, one a line.
func (e *errorLogs) serve(w http.ResponseWriter, r *http.Request) {
	e.mu.Lock()
	text, found := e.files[r.URL.Query().Get("file")]
	e.mu.Unlock()
	if !found {
		http.Error(w, "file not found", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = fmt.Fprint(w, text)
}
