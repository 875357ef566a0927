package output

import (
	"strings"
	"testing"

	_ "github.com/redpanda-data/benthos/v4/public/components/io"
	_ "github.com/redpanda-data/benthos/v4/public/components/pure"
	"github.com/redpanda-data/benthos/v4/public/service"

	_ "github.com/rpconnect-doris/rpconnect-doris/input"
)

func parseTestConfig(t *testing.T, extra string) (*config, error) {
	t.Helper()
	pc, err := Spec().ParseYAML("fenodes: 127.0.0.1:8030\nusername: root\ntable_identifier: db.t\n"+extra, nil)
	if err != nil {
		return nil, err
	}
	return parseConfig(pc)
}

// TestConfigErrorsNameTheField checks the checks that run even when linting
// is off.
func TestConfigErrorsNameTheField(t *testing.T) {
	for extra, want := range map[string]string{
		"format: xml\n":        "format must be one of json, csv",
		"cdc: maybe\n":         "cdc must be one of auto, true, false",
		"group_commit: fast\n": "group_commit must be one of off_mode",
		"group_commit: sync_mode\ntwo_phase_commit: true\n": "two_phase_commit cannot be combined with group_commit",
		"partial_columns: true\n":                           "partial_columns needs columns",
		"format: csv\nsequence_column: s\n":                 "sequence_column needs format json",
		"label_prefix: 'a b'\n":                             "label_prefix must be 1 to 64 characters",
		"max_filter_ratio: 2\n":                             "max_filter_ratio must be between 0 and 1",
		"headers:\n  label: x\n":                            "headers.label is set by doris_load itself",
		"request_retries: 0\n":                              "request_retries must be at least 1",
		"schema_evolution:\n  drop_columns: true\n":         "schema_evolution.drop_columns needs schema_evolution.enabled",
		"headers:\n  where: \"a=1\\r\\nX-Evil: 1\"\n":       "field headers: headers.where holds a line break",
		"headers:\n  \"bad name\": x\n":                     `field headers: "bad name" is not a valid HTTP header name`,
		"headers:\n  where: \"a\\x00\"\n":                   "headers.where holds control character 0x00",
		"columns: \"id,\\nname\"\n":                         "field columns: the value holds a line break",
		"sequence_column: \"s\\rt\"\n":                      "field sequence_column: the value holds a line break",
	} {
		_, err := parseTestConfig(t, extra)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", extra, err, want)
		}
	}
	pc, err := Spec().ParseYAML("fenodes: nope\nusername: root\ntable_identifier: db.t\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := parseConfig(pc); err == nil || !strings.Contains(err.Error(), "fenodes entry") {
		t.Errorf("bad fenodes: %v", err)
	}
}

func TestConfigDefaultsAndHeaders(t *testing.T) {
	c, err := parseTestConfig(t, "timeout: 1500ms\nstrict_mode: true\nmax_filter_ratio: 0.1\nheaders:\n  column_separator: '\\x01'\nformat: csv\n")
	if err != nil {
		t.Fatal(err)
	}
	if c.timeoutSecs != "2" || c.strictMode != "true" || c.maxFilterRatio != "0.1" || c.csvSeparator != "\x01" {
		t.Fatalf("options %+v", c)
	}
	if c.labelPrefix != defaultLabelPrefix || c.cdc != cdcAuto || c.groupCommit != groupCommitOff || c.twoPC {
		t.Fatalf("defaults %+v", c)
	}
}

// TestLintRules runs the spec's lint rules through a stream builder.
func TestLintRules(t *testing.T) {
	for yaml, want := range map[string]string{
		"batching:\n  period: 1s\n":                         "batching.period cuts batches by time",
		"group_commit: async_mode\nlabel_prefix: x\n":       "label_prefix cannot be combined with group_commit",
		"group_commit: sync_mode\ntwo_phase_commit: true\n": "two_phase_commit cannot be combined",
		"headers:\n  Two_Phase_Commit: 'true'\n":            "headers.Two_Phase_Commit is set by doris_load",
		"format: parquet\n":                                 "format must be one of json, csv",
		"headers:\n  where: \"a=1\\r\\nX-Evil: 1\"\n":       "headers.where holds a line break",
		"headers:\n  \"bad:name\": x\n":                     `headers: "bad:name" is not a valid HTTP header name`,
		"columns: \"id,\\nname\"\n":                         "columns holds a line break",
		"sequence_column: \"s\\rt\"\n":                      "sequence_column holds a line break",
		"schema_evolution:\n  drop_columns: true\n":         "schema_evolution.drop_columns needs schema_evolution.enabled",
	} {
		b := service.NewStreamBuilder()
		err := b.AddOutputYAML("doris_load:\n  fenodes: 127.0.0.1:8030\n  username: root\n  table_identifier: db.t\n  " + strings.ReplaceAll(strings.TrimSpace(yaml), "\n", "\n  ") + "\n")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: lint %v, want %q", yaml, err, want)
		}
	}
	b := service.NewStreamBuilder()
	if err := b.AddOutputYAML("doris_load:\n  fenodes: 127.0.0.1:8030\n  username: root\n  table_identifier: db.t\n  cdc: \"false\"\n  batching:\n    period: 1s\n"); err != nil {
		t.Fatalf("period with cdc false: %v", err)
	}
	b = service.NewStreamBuilder()
	if err := b.AddOutputYAML("doris_load:\n  fenodes: 127.0.0.1:8030\n  username: root\n  table_identifier: db.t\n  columns: \"a,\\tb\"\n  headers:\n    where: \"k = 'a\\tb'\"\n    X-Custom_1: v\n"); err != nil {
		t.Fatalf("tabs and a custom header name: %v", err)
	}
}

// TestSpecExamplesLint: the examples in the docs are valid configs.
func TestSpecExamplesLint(t *testing.T) {
	for name, yaml := range map[string]string{"replicate": exampleReplicate, "files": exampleFiles} {
		b := service.NewStreamBuilder()
		if err := b.SetYAML(yaml); err != nil {
			t.Errorf("example %s: %v", name, err)
		}
	}
}
