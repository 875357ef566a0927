package testlog

import "testing"

func TestLinesByLevelAndText(t *testing.T) {
	log, sink := New()
	log.Warnf("the tail read of orders/0 waits")
	log.Infof("the tail read of orders/1 waits")
	log.Debugf("detail")
	if got := sink.Lines("WARN", "orders/0"); len(got) != 1 {
		t.Fatalf("WARN lines with orders/0: %q", got)
	}
	if got := sink.Lines("WARN", "orders/1"); len(got) != 0 {
		t.Fatalf("an INFO line counted as WARN: %q", got)
	}
	if got := sink.Lines("", "tail read"); len(got) != 2 {
		t.Fatalf("lines of any level: %q", got)
	}
}
