package input

import (
	"testing"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/internal/testlog"
)

// logSink keeps what a logger wrote, for tests that check what a user is
// told and how often.
type logSink = testlog.Sink

func captureLogger(t *testing.T) (*service.Logger, *logSink) {
	t.Helper()
	return testlog.New()
}
