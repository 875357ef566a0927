package harness

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
)

// LogCapture records a stream's log lines, for tests that check what was
// logged, at which level and how often.
type LogCapture struct {
	mu    sync.Mutex
	lines []LogLine
}

// LogLine is one captured record.
type LogLine struct {
	Level slog.Level
	Text  string // message and attributes
}

// Logger returns a debug-level slog logger feeding the capture.
func (c *LogCapture) Logger() *slog.Logger {
	return slog.New(&captureHandler{c: c})
}

// Lines returns the captured lines at or above min whose text contains sub.
func (c *LogCapture) Lines(min slog.Level, sub string) []LogLine {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []LogLine
	for _, l := range c.lines {
		if l.Level >= min && strings.Contains(l.Text, sub) {
			out = append(out, l)
		}
	}
	return out
}

// All returns every captured line's text, for failure messages and leak checks.
func (c *LogCapture) All() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var b strings.Builder
	for _, l := range c.lines {
		b.WriteString(l.Level.String() + " " + l.Text + "\n")
	}
	return b.String()
}

type captureHandler struct {
	c     *LogCapture
	attrs []slog.Attr
}

func (h *captureHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h *captureHandler) Handle(_ context.Context, r slog.Record) error {
	var b bytes.Buffer
	b.WriteString(r.Message)
	write := func(a slog.Attr) bool {
		b.WriteString(" " + a.Key + "=" + a.Value.String())
		return true
	}
	for _, a := range h.attrs {
		write(a)
	}
	r.Attrs(write)
	h.c.mu.Lock()
	h.c.lines = append(h.c.lines, LogLine{Level: r.Level, Text: b.String()})
	h.c.mu.Unlock()
	return nil
}

func (h *captureHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &captureHandler{c: h.c, attrs: append(append([]slog.Attr(nil), h.attrs...), attrs...)}
}

func (h *captureHandler) WithGroup(string) slog.Handler { return h }
