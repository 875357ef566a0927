// Command rpconnect-doris is a Redpanda Connect (Benthos v4) distribution made
// of the benthos pure and io components plus the doris_binlog input, the
// doris_load output, the doris cache and the prometheus metrics exporter.
//
// Beyond Benthos's commands it has `offsets`, which shows and changes where
// a stopped pipeline's doris_binlog input resumes (offsets.go).
//
// Benthos makes `prometheus` the default metrics type whenever an exporter of
// that name is registered, so a config without a `metrics` section is served
// at /metrics here.
package main

import (
	"context"

	_ "github.com/redpanda-data/benthos/v4/public/components/io"
	_ "github.com/redpanda-data/benthos/v4/public/components/pure"
	"github.com/redpanda-data/benthos/v4/public/service"

	_ "github.com/rpconnect-doris/rpconnect-doris/cache"
	_ "github.com/rpconnect-doris/rpconnect-doris/input"
	"github.com/rpconnect-doris/rpconnect-doris/kafka"
	_ "github.com/rpconnect-doris/rpconnect-doris/metrics/prometheus"
	_ "github.com/rpconnect-doris/rpconnect-doris/output"
)

// Set at build time with -ldflags "-X main.version=... -X main.dateBuilt=...".
var (
	version   = "dev"
	dateBuilt = "unknown"
)

func main() {
	tuneGC()
	service.RunCLI(context.Background(),
		service.CLIOptSetBinaryName("rpconnect-doris"),
		service.CLIOptSetProductName("rpconnect-doris"),
		service.CLIOptSetVersion(version, dateBuilt),
		// kafka_franz exactly_once needs pipeline.threads 1, which its own
		// lint rule cannot see.
		service.CLIOptOnConfigParse(kafka.CheckPipeline),
		service.CLIOptAddCommand(offsetsCommand()),
	)
}
