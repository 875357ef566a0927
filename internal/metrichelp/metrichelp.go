// Package metrichelp holds what each metric of this module's components
// means and in which unit, keyed by the name the component registers with
// Benthos. Benthos's metrics API takes a name and label keys only, so the
// components describe their metrics here, beside where they register them,
// and an exporter that publishes descriptions (the prometheus exporter's
// HELP lines) reads them back.
package metrichelp

import "sync"

var (
	mu    sync.RWMutex
	texts = map[string]string{}
)

// Describe records text as what the metric name means and returns name, so
// that a name constant can be declared with its description:
//
//	var metricLag = metrichelp.Describe("x_lag_seconds", "How far behind ... in seconds.")
//
// Describing a name twice keeps the last text.
func Describe(name, text string) string {
	mu.Lock()
	defer mu.Unlock()
	texts[name] = text
	return name
}

// Text is the description of the metric name, if one was recorded.
func Text(name string) (string, bool) {
	mu.RLock()
	defer mu.RUnlock()
	t, ok := texts[name]
	return t, ok
}

// Names lists every described metric, for tests that check them all.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]string, 0, len(texts))
	for n := range texts {
		out = append(out, n)
	}
	return out
}
