package output

import (
	"reflect"
	"strings"
	"testing"

	"github.com/redpanda-data/benthos/v4/public/service"
)

func TestCreateTablesConfig(t *testing.T) {
	c, err := parseTestConfig(t, "")
	if err != nil {
		t.Fatal(err)
	}
	if c.create.enabled || c.create.opts.Buckets != 0 || len(c.create.opts.Properties) != 0 || c.create.opts.Template != "" {
		t.Fatalf("defaults: %+v", c.create)
	}
	c, err = parseTestConfig(t, "sequence_column: _seq\ncreate_tables:\n  enabled: true\n  buckets: 16\n  properties:\n    replication_num: \"3\"\n  template: 'CREATE TABLE {table} ({columns})'\n")
	if err != nil {
		t.Fatal(err)
	}
	o := c.create.opts
	if !c.create.enabled || o.Buckets != 16 || !reflect.DeepEqual(o.Properties, map[string]string{"replication_num": "3"}) ||
		o.Template != "CREATE TABLE {table} ({columns})" || o.SequenceColumn != "_seq" {
		t.Fatalf("parsed: %+v", c.create)
	}
	if c, err = parseTestConfig(t, "create_tables:\n  buckets: AUTO\n"); err != nil || c.create.opts.Buckets != 0 {
		t.Fatalf("buckets AUTO: %v %+v", err, c)
	}
	for extra, want := range map[string]string{
		"create_tables:\n  buckets: 0\n":                       "create_tables.buckets must be auto or a positive number",
		"create_tables:\n  buckets: many\n":                    "create_tables.buckets must be auto or a positive number",
		"create_tables:\n  template: 'CREATE TABLE {table}'\n": "field create_tables.template: template must contain {columns}",
	} {
		if _, err := parseTestConfig(t, extra); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", extra, err, want)
		}
	}
	// The lint rule says the same before the stream starts.
	env := service.NewEnvironment()
	err = env.NewStreamBuilder().AddOutputYAML("doris_load:\n  fenodes: 127.0.0.1:8030\n  username: root\n  table_identifier: a.b\n  create_tables:\n    buckets: -2\n")
	if err == nil || !strings.Contains(err.Error(), "create_tables.buckets must be auto or a positive number") {
		t.Fatalf("lint: %v", err)
	}
}
