package cache

import (
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

// The backoff field keeps its Benthos shape and becomes the bundle's one
// backoff policy: initial_interval the first wait, max_interval the cap,
// max_elapsed_time the operation's budget.
func TestBackoffFieldIsTheSharedPolicy(t *testing.T) {
	for yaml, want := range map[string]doris.BackoffPolicy{
		"": {Base: 200 * time.Millisecond, Max: 5 * time.Second, MaxElapsed: time.Minute},
		"backoff:\n  initial_interval: 10ms\n  max_interval: 100ms\n  max_elapsed_time: 1s\n": {Base: 10 * time.Millisecond, Max: 100 * time.Millisecond, MaxElapsed: time.Second},
	} {
		pc, err := Spec().ParseYAML("jdbc_url: jdbc:mysql://127.0.0.1:9030\ntable: ops.cp\n"+yaml, nil)
		if err != nil {
			t.Fatal(err)
		}
		c, err := configFromParsed(pc)
		if err != nil {
			t.Fatal(err)
		}
		if c.Backoff != want {
			t.Errorf("%q: backoff %+v, want %+v", yaml, c.Backoff, want)
		}
	}
}
