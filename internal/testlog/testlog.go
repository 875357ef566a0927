// Package testlog gives tests a Benthos logger whose lines they can read,
// for checks of what a user is told and how often.
package testlog

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"

	"github.com/redpanda-data/benthos/v4/public/service"
)

// Sink keeps what a logger wrote.
type Sink struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *Sink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

// Lines returns the records logged at level (e.g. "WARN", "" for any) that
// contain sub.
func (s *Sink) Lines(level, sub string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, l := range strings.Split(s.buf.String(), "\n") {
		if l != "" && strings.Contains(l, "level="+level) && strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return out
}

// New is a logger at debug level writing into a new Sink.
func New() (*service.Logger, *Sink) {
	sink := &Sink{}
	h := slog.NewTextHandler(sink, &slog.HandlerOptions{Level: slog.LevelDebug})
	return service.NewLoggerFromSlog(slog.New(h)), sink
}
