package kafka

import (
	"fmt"

	"github.com/redpanda-data/benthos/v4/public/service"
)

// CheckPipeline refuses a main config whose output holds a kafka_franz with
// exactly_once while pipeline.threads is not 1: several pipeline threads
// hand batches to the output out of order, and the tail check would then
// drop the older ones as already written. A component's lint rule cannot
// see the pipeline section, so cmd/rpconnect-doris runs this once the
// config is parsed (service.CLIOptOnConfigParse), before any stream starts.
func CheckPipeline(pc *service.ParsedConfig) error {
	if pc == nil || !pc.Contains("output") {
		return nil
	}
	out, err := pc.FieldAny("output")
	if err != nil {
		return nil
	}
	// The main config holds the output as a YAML node.
	if n, ok := out.(interface{ Decode(any) error }); ok {
		var v any
		if err := n.Decode(&v); err != nil {
			return fmt.Errorf("reading the output config: %w", err)
		}
		out = v
	}
	if !hasExactlyOnce(out) {
		return nil
	}
	threads := -1 // Benthos's default: one per CPU
	if pc.Contains("pipeline", "threads") {
		if threads, err = pc.FieldInt("pipeline", "threads"); err != nil {
			return fmt.Errorf("pipeline.threads: %w", err)
		}
	}
	if threads != 1 {
		return fmt.Errorf("kafka_franz exactly_once needs pipeline.threads: 1; got %d (the default -1 is one thread per CPU): several threads hand batches to the output out of order, and older changes would be dropped as already written", threads)
	}
	return nil
}

// hasExactlyOnce reports whether a raw output config holds a kafka_franz
// with exactly_once: true, at any depth (broker, fallback, switch cases).
func hasExactlyOnce(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		if kf, ok := x[Name].(map[string]any); ok {
			if on, _ := kf[fieldExactlyOnce].(bool); on {
				return true
			}
		}
		for _, c := range x {
			if hasExactlyOnce(c) {
				return true
			}
		}
	case []any:
		for _, c := range x {
			if hasExactlyOnce(c) {
				return true
			}
		}
	}
	return false
}
