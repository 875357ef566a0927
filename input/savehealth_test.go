package input

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

func TestCheckSave(t *testing.T) {
	conf := &Config{CheckpointCache: "cp", CheckpointKey: "doris_binlog_shop.orders", CheckpointLimit: 1}
	r, err := newReader(conf, service.BatchPolicy{}, service.MockResources(service.MockResourcesOptAddCache("cp")))
	if err != nil {
		t.Fatal(err)
	}
	clock := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	r.saveHealth.now = func() time.Time { return clock }
	down := errors.New("dial tcp 127.0.0.1:9030: connection refused")

	if err := r.checkSave(down); !errors.Is(err, down) || isFatal(err) {
		t.Fatalf("a refused connection: %v, want it returned, not fatal", err)
	}
	clock = clock.Add(maxSaveOutage - time.Second)
	if err := r.checkSave(down); isFatal(err) {
		t.Fatalf("fatal before the outage bound: %v", err)
	}
	if err := r.checkSave(nil); err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(time.Minute)
	if err := r.checkSave(down); isFatal(err) {
		t.Fatalf("a success did not end the outage: %v", err)
	}
	clock = clock.Add(maxSaveOutage)
	err = r.checkSave(down)
	if !isFatal(err) || !strings.Contains(err.Error(), "checkpoint_cache cp") || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("after the outage bound: %v, want a fatal error naming the cache and the cause", err)
	}

	r.saveHealth = saveHealth{}
	tooLong := doris.Permanent(errors.New("doris cache cp: set: the length of input string is too long than schema"))
	err = r.checkSave(tooLong)
	if !isFatal(err) || !strings.Contains(err.Error(), "checkpoint_cache cp") || !strings.Contains(err.Error(), "too long") {
		t.Fatalf("a permanent error: %v, want a fatal error naming the cache and the cause", err)
	}
}
