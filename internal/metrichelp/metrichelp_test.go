package metrichelp

import (
	"slices"
	"testing"
)

func TestDescribe(t *testing.T) {
	if n := Describe("test_metric_seconds", "A test metric, in seconds."); n != "test_metric_seconds" {
		t.Fatalf("Describe returned %q, want the name", n)
	}
	if got, ok := Text("test_metric_seconds"); !ok || got != "A test metric, in seconds." {
		t.Fatalf("Text = %q, %v", got, ok)
	}
	if _, ok := Text("never_described"); ok {
		t.Fatal("a name never described has a text")
	}
	if !slices.Contains(Names(), "test_metric_seconds") {
		t.Fatalf("Names() = %v", Names())
	}
}
