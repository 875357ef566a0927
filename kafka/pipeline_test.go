package kafka

import (
	"strings"
	"testing"

	"github.com/redpanda-data/benthos/v4/public/service"
)

func mainConfig(t *testing.T, y string) *service.ParsedConfig {
	t.Helper()
	spec := service.NewConfigSpec().
		Field(service.NewObjectField("pipeline", service.NewIntField("threads").Default(-1)).Optional()).
		Field(service.NewAnyField("output").Optional())
	pc, err := spec.ParseYAML(y, nil)
	if err != nil {
		t.Fatal(err)
	}
	return pc
}

func TestCheckPipelineThreads(t *testing.T) {
	eo := "output:\n  fallback:\n    - kafka_franz:\n        exactly_once: true\n    - stdout: {}\n"
	for y, want := range map[string]string{
		eo:                               "needs pipeline.threads: 1; got -1",
		"pipeline:\n  threads: 4\n" + eo: "got 4",
		"pipeline:\n  threads: 1\n" + eo: "",
		"output:\n  kafka_franz:\n    topic: t\n":                                     "",
		"pipeline:\n  threads: 4\noutput:\n  kafka_franz:\n    exactly_once: false\n": "",
	} {
		err := CheckPipeline(mainConfig(t, y))
		if want == "" && err != nil {
			t.Errorf("%q: %v", y, err)
		}
		if want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("%q: error %v; want %q", y, err, want)
		}
	}
}
