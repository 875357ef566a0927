package output

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"
)

// stallingDoris is an FE whose BE misbehaves in one of three ways; label
// states are UNKNOWN, as for a load that never began.
func stallingDoris(t *testing.T, mode string) string {
	stop := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("PUT /api/{db}/{table}/_stream_load", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/be/"+r.PathValue("db")+"/"+r.PathValue("table"), http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("PUT /be/{db}/{table}", func(w http.ResponseWriter, r *http.Request) {
		switch mode {
		case "unread body": // the BE stops reading: the upload blocks
		case "no answer":
			_, _ = io.Copy(io.Discard, r.Body)
		case "endless answer":
			_, _ = io.Copy(io.Discard, r.Body)
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write([]byte(`{"Status":`))
			http.NewResponseController(w).Flush()
		}
		<-stop
	})
	mux.HandleFunc("GET /api/{db}/get_load_state", func(w http.ResponseWriter, r *http.Request) {
		writeJSONT(w, map[string]any{"code": 0, "msg": "success", "data": "UNKNOWN"})
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(stop) }) // runs first: the handlers return
	return strings.TrimPrefix(srv.URL, "http://")
}

// TestStalledLoadIsBounded: a BE that stops reading the body, never
// answers, or never finishes its answer fails the load once `timeout` plus
// request_connect_timeout ran out, even with a request_read_timeout of an
// hour; WriteBatch returns an error (the batch is nacked, not acked).
func TestStalledLoadIsBounded(t *testing.T) {
	// Larger than the socket buffers of loopback, so an unread upload blocks.
	big := append(append([]byte(`{"v":"`), bytes.Repeat([]byte("x"), 48<<20)...), `"}`...)
	for _, mode := range []string{"unread body", "no answer", "endless answer"} {
		t.Run(strings.ReplaceAll(mode, " ", "_"), func(t *testing.T) {
			addr := stallingDoris(t, mode)
			pc, err := Spec().ParseYAML("fenodes: "+addr+"\nusername: root\ntable_identifier: db.t\ncdc: \"false\"\n"+
				"timeout: 1s\nrequest_connect_timeout: 1s\nrequest_read_timeout: 1h\nrequest_retries: 1\n", nil)
			if err != nil {
				t.Fatal(err)
			}
			conf, err := parseConfig(pc)
			if err != nil {
				t.Fatal(err)
			}
			o, err := newDorisLoad(conf, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = o.Close(testCtx(t)) })
			ctx := testCtx(t)
			done := make(chan error, 1)
			go func() { done <- o.WriteBatch(ctx, service.MessageBatch{service.NewMessage(big)}) }()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), "no complete answer within 2s") {
					t.Fatalf("stalled load: %v", err)
				}
			case <-time.After(15 * time.Second):
				t.Fatal("WriteBatch still blocked 15s into a load bounded at 2s")
			}
		})
	}
}
