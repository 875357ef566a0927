package input

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/redpanda-data/benthos/v4/public/service"
)

// logSink keeps what a logger wrote, for tests that check what a user is
// told and how often.
type logSink struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *logSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

// lines returns the records logged at level (e.g. "WARN") that contain sub.
func (s *logSink) lines(level, sub string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, l := range strings.Split(s.buf.String(), "\n") {
		if strings.Contains(l, "level="+level) && strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return out
}

func captureLogger(t *testing.T) (*service.Logger, *logSink) {
	t.Helper()
	sink := &logSink{}
	h := slog.NewTextHandler(sink, &slog.HandlerOptions{Level: slog.LevelDebug})
	return service.NewLoggerFromSlog(slog.New(h)), sink
}
