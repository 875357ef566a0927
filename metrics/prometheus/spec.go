// Package prometheus is a Benthos metrics exporter, `prometheus`, that serves
// every metric of the stream in the Prometheus text format on the service-wide
// HTTP server's `/metrics` and `/stats` endpoints.
//
// Only cmd/rpconnect-doris imports it: a Redpanda Connect build ships its own
// `prometheus` exporter and can import the doris_binlog input without a name
// clash because input/ never imports this package.
package prometheus

import (
	"fmt"
	"regexp"

	"github.com/redpanda-data/benthos/v4/public/service"
)

// Name is the exporter's name in a config's `metrics` section.
const Name = "prometheus"

const (
	fieldPrefix           = "prefix"
	fieldTiming           = "timing_type"
	fieldBuckets          = "histogram_buckets"
	fieldObjectives       = "summary_objectives"
	fieldQuantile         = "quantile"
	fieldError            = "error"
	fieldGoMetrics        = "add_go_metrics"
	fieldProcessMetrics   = "add_process_metrics"
	timingHistogram       = "histogram"
	timingSummary         = "summary"
	defaultSummaryMaxAge  = "10m" // documented only; client_golang's default
	descriptionOfExporter = `Every counter, gauge and timer of the stream (the Benthos component metrics and the ` + "`doris_binlog_*`" + ` metrics of the input) is served on the service-wide HTTP server at ` + "`/metrics`" + ` (and ` + "`/stats`" + `), in the Prometheus text format. This is the default metrics type of rpconnect-doris: a config without a ` + "`metrics`" + ` section is scraped at ` + "`http://<http.address>/metrics`" + `.

Names follow Prometheus conventions:

- counters end in ` + "`_total`" + ` (Benthos's ` + "`input_received`" + ` becomes ` + "`input_received_total`" + `);
- timers are in seconds: Benthos's ` + "`*_ns`" + ` timers become ` + "`*_seconds`" + ` and every timing is divided by 10^9;
- characters outside ` + "`[a-zA-Z0-9_]`" + ` become ` + "`_`" + `.

Each metric's HELP line says what it means and its unit: the ` + "`doris_binlog_*`" + ` and ` + "`kafka_franz_*`" + ` metrics as their components describe them, Benthos's component metrics as Benthos defines them; a metric no one described (another plugin's) gets ` + "`Benthos <kind> <name>.`" + `. Gauges keep fractions: ` + "`doris_binlog_lag_seconds`" + ` has millisecond resolution.

Label values come from the config (component ` + "`label`" + ` and ` + "`path`" + `) or from small fixed sets (phase, operation), so the number of series stays bounded.`
)

var prefixRe = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)

// Spec describes the exporter's config.
func Spec() *service.ConfigSpec {
	return service.NewConfigSpec().
		Stable().
		Summary("Serves the stream's metrics for Prometheus to scrape at `/metrics` on the service-wide HTTP server.").
		Description(descriptionOfExporter).
		Fields(
			service.NewStringField(fieldPrefix).
				Description("Prepended to every metric name with an underscore, e.g. `rpcd` turns `doris_binlog_lag_seconds` into `rpcd_doris_binlog_lag_seconds`. Empty for none. Must match `[a-zA-Z_][a-zA-Z0-9_]*`.").
				Default("").Example("rpcd"),
			service.NewStringEnumField(fieldTiming, timingHistogram, timingSummary).
				Description("How timers are exported: `histogram` (buckets from `"+fieldBuckets+"`, aggregatable across instances, the default) or `summary` (quantiles from `"+fieldObjectives+"`, computed per instance over a sliding "+defaultSummaryMaxAge+" window).").
				Default(timingHistogram),
			service.NewFloatListField(fieldBuckets).
				Description("Upper bounds, in seconds, of the histogram buckets. Strictly increasing; `+Inf` is always added.").
				Default([]any{0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0}).
				Advanced(),
			service.NewObjectListField(fieldObjectives,
				service.NewFloatField(fieldQuantile).Description("A quantile, in (0, 1)."),
				service.NewFloatField(fieldError).Description("Its allowed absolute error."),
			).
				Description("Quantiles of the summary timers and their allowed errors.").
				Default([]any{
					map[string]any{fieldQuantile: 0.5, fieldError: 0.05},
					map[string]any{fieldQuantile: 0.9, fieldError: 0.01},
					map[string]any{fieldQuantile: 0.99, fieldError: 0.001},
				}).
				Advanced(),
			service.NewBoolField(fieldGoMetrics).
				Description("Also export the Go runtime collector (`go_*`: goroutines, heap, GC).").
				Default(true),
			service.NewBoolField(fieldProcessMetrics).
				Description("Also export the process collector (`process_*`: CPU seconds, resident memory, open file descriptors). Linux only; elsewhere it exports nothing.").
				Default(true),
		).
		Example("Defaults", "What rpconnect-doris uses when the config has no `metrics` section.", `
http:
  address: 0.0.0.0:4195
metrics:
  prometheus: {}
`).
		Example("Summaries, no runtime metrics", "Quantile timers and only the pipeline's own metrics.", `
metrics:
  prometheus:
    prefix: rpcd
    timing_type: summary
    add_go_metrics: false
    add_process_metrics: false
`)
}

func init() {
	if err := Register(service.GlobalEnvironment()); err != nil {
		panic(err)
	}
}

// Register adds the exporter to env, for builds that use their own
// environment (the global one gets it from this package's init).
func Register(env *service.Environment) error {
	return env.RegisterMetricsExporter(Name, Spec(), func(conf *service.ParsedConfig, log *service.Logger) (service.MetricsExporter, error) {
		opts, err := optionsFromConfig(conf)
		if err != nil {
			return nil, fmt.Errorf("metrics %s: %w", Name, err)
		}
		return New(opts, log)
	})
}

func optionsFromConfig(conf *service.ParsedConfig) (Options, error) {
	var o Options
	var err error
	if o.Prefix, err = conf.FieldString(fieldPrefix); err != nil {
		return o, err
	}
	if o.Timing, err = conf.FieldString(fieldTiming); err != nil {
		return o, err
	}
	if o.Buckets, err = conf.FieldFloatList(fieldBuckets); err != nil {
		return o, err
	}
	objs, err := conf.FieldObjectList(fieldObjectives)
	if err != nil {
		return o, err
	}
	o.Objectives = map[float64]float64{}
	for i, obj := range objs {
		q, err := obj.FieldFloat(fieldQuantile)
		if err != nil {
			return o, err
		}
		e, err := obj.FieldFloat(fieldError)
		if err != nil {
			return o, err
		}
		if q <= 0 || q >= 1 || e <= 0 || e >= 1 {
			return o, fmt.Errorf("%s[%d]: quantile and error must be in (0, 1), got %v and %v", fieldObjectives, i, q, e)
		}
		o.Objectives[q] = e
	}
	if o.GoMetrics, err = conf.FieldBool(fieldGoMetrics); err != nil {
		return o, err
	}
	if o.ProcessMetrics, err = conf.FieldBool(fieldProcessMetrics); err != nil {
		return o, err
	}
	return o, nil
}
