package input

import (
	"errors"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

const testPassword = "s3cr3t-Pa55"

var baseFields = map[string]string{
	"fenodes":          "127.0.0.1:8030",
	"table_identifier": "shop.orders",
	"username":         "root",
	"password":         testPassword,
}

// configYAML renders the base fields overridden by over; a value of "-"
// removes the key.
func configYAML(over map[string]string) string {
	m := maps.Clone(baseFields)
	for k, v := range over {
		if v == "-" {
			delete(m, k)
			continue
		}
		m[k] = v
	}
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(m)) {
		b.WriteString(k + ": " + m[k] + "\n")
	}
	return b.String()
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ") + "\n"
}

var errTestCtor = errors.New("test constructor")

// lintInput lints the config as a stream builder does. The input is
// registered in an isolated environment so the test does not depend on the
// package's init registration.
func lintInput(t *testing.T, body string) error {
	t.Helper()
	env := service.NewEmptyEnvironment()
	err := env.RegisterBatchInput("doris_binlog", Spec(), func(pc *service.ParsedConfig, mgr *service.Resources) (service.BatchInput, error) {
		if _, err := parseConfig(pc, mgr); err != nil {
			return nil, err
		}
		return nil, errTestCtor
	})
	if err != nil {
		t.Fatal(err)
	}
	return env.NewStreamBuilder().AddInputYAML("doris_binlog:\n" + indent(body))
}

func parseInput(t *testing.T, body string) (*Config, error) {
	t.Helper()
	pc, err := Spec().ParseYAML(body, service.NewEmptyEnvironment())
	if err != nil {
		t.Fatalf("ParseYAML: %v\n%s", err, body)
	}
	return parseConfig(pc, service.MockResources(service.MockResourcesOptAddCache("cp")))
}

type invalidCase struct {
	name  string
	over  map[string]string
	lint  string // substring of the lint error; "" when not statically checkable
	field string // field parseConfig must name
	parse string // substring of the parseConfig error
}

var incr = map[string]string{"scan_mode": "initial", "checkpoint_cache": "cp"}

func with(base map[string]string, kv ...string) map[string]string {
	m := maps.Clone(base)
	if m == nil {
		m = map[string]string{}
	}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

var invalidCases = []invalidCase{
	{"bad scan_mode", with(nil, "scan_mode", "bogus"), `scan_mode must be one of snapshot, initial, latest, from-timestamp; got "bogus"`, "scan_mode", `got "bogus"`},
	{"bad increment type", with(nil, "binlog_increment_type", "full"), `binlog_increment_type must be one of detail, min_delta, append_only; got "full"`, "binlog_increment_type", `got "full"`},
	{"bad on_expired", with(nil, "binlog_on_expired", "ignore"), `binlog_on_expired must be one of continue, fail; got "ignore"`, "binlog_on_expired", `got "ignore"`},
	{"scan_timestamp wrong separator", with(nil, "scan_mode", "from-timestamp", "checkpoint_cache", "cp", "scan_timestamp", `"2025-10-09T08:53:20"`), "scan_timestamp must match yyyy-MM-dd HH:mm:ss", "scan_timestamp", "must match yyyy-MM-dd HH:mm:ss"},
	{"scan_timestamp month 13", with(nil, "scan_mode", "from-timestamp", "checkpoint_cache", "cp", "scan_timestamp", `"2025-13-09 08:53:20"`), "scan_timestamp must match yyyy-MM-dd HH:mm:ss", "scan_timestamp", "must match"},
	{"scan_timestamp trailing chars", with(nil, "scan_mode", "from-timestamp", "checkpoint_cache", "cp", "scan_timestamp", `"2025-10-09 08:53:20.5"`), "scan_timestamp must match yyyy-MM-dd HH:mm:ss", "scan_timestamp", "must match"},
	{"scan_timestamp one-digit hour", with(nil, "scan_mode", "from-timestamp", "checkpoint_cache", "cp", "scan_timestamp", `"2025-10-09 8:53:20"`), "scan_timestamp must match yyyy-MM-dd HH:mm:ss", "scan_timestamp", "must match"},
	{"scan_timestamp feb 30", with(nil, "scan_mode", "from-timestamp", "checkpoint_cache", "cp", "scan_timestamp", `"2025-02-30 00:00:00"`), "scan_timestamp must match yyyy-MM-dd HH:mm:ss", "scan_timestamp", "must match"},
	{"scan_timestamp without from-timestamp", with(incr, "scan_timestamp", `"2025-10-09 08:53:20"`), "scan_timestamp is only valid in from-timestamp mode", "scan_timestamp", "only valid in from-timestamp mode"},
	{"from-timestamp without scan_timestamp", with(nil, "scan_mode", "from-timestamp", "checkpoint_cache", "cp"), "scan_timestamp is required when scan_mode is from-timestamp", "scan_timestamp", "required"},
	{"negative visible wait", with(nil, "binlog_visible_wait_timeout", "-1s"), "binlog_visible_wait_timeout must not be negative", "binlog_visible_wait_timeout", "must not be negative"},
	{"poll interval 500ms", with(nil, "binlog_poll_interval", "500ms"), "binlog_poll_interval must be at least 1 second", "binlog_poll_interval", "at least 1 second"},
	{"malformed poll interval", with(nil, "binlog_poll_interval", "soon"), "binlog_poll_interval must be a duration", "binlog_poll_interval", ""},
	{"filter_query with initial", with(incr, "filter_query", `"id > 5"`), "incremental scan modes (initial, latest, from-timestamp) do not support filter_query", "filter_query", "do not support filter_query"},
	{"filter_query with latest", with(incr, "scan_mode", "latest", "filter_query", `"id > 5"`), "do not support filter_query", "filter_query", "do not support filter_query"},
	{"offset table without consumer id", with(incr, "binlog_offset_table", "ops.offsets", "jdbc_url", "jdbc:mysql://fe:9030"), "binlog_offset_table and binlog_consumer_id must be configured together", "binlog_offset_table", "configured together"},
	{"consumer id without offset table", with(incr, "binlog_consumer_id", "c1"), "binlog_offset_table and binlog_consumer_id must be configured together", "binlog_offset_table", "configured together"},
	{"offset table without jdbc_url", with(incr, "binlog_offset_table", "ops.offsets", "binlog_consumer_id", "c1"), "jdbc_url is required when binlog_offset_table is configured", "jdbc_url", "jdbc_url is required"},
	{"offset table in snapshot mode", with(nil, "binlog_offset_table", "ops.offsets", "binlog_consumer_id", "c1", "jdbc_url", "jdbc:mysql://fe:9030"), "binlog_offset_table is only valid in incremental scan modes", "binlog_offset_table", "only valid in incremental scan modes"},
	{"offset table not db.table", with(incr, "binlog_offset_table", "offsets", "binlog_consumer_id", "c1", "jdbc_url", "jdbc:mysql://fe:9030"), "binlog_offset_table must be db.table", "binlog_offset_table", "must be db.table"},
	{"signal table in snapshot mode", with(nil, "signal_table", "ops.signals"), "signal_table is only valid in incremental scan modes", "signal_table", "only valid in incremental scan modes"},
	{"signal table not db.table", with(incr, "signal_table", "signals"), "signal_table must be db.table", "signal_table", "must be db.table"},
	{"signal table is a data table", with(incr, "signal_table", "shop.orders"), "", "signal_table", "is also one of the tables"},
	{"bad jdbc_url scheme", with(nil, "jdbc_url", "mysql://fe:9030"), "jdbc_url must look like jdbc:mysql://host:port", "jdbc_url", "must start with jdbc:mysql://"},
	{"jdbc_url without port", with(nil, "jdbc_url", "jdbc:mysql://fe/db"), "jdbc_url must look like", "jdbc_url", "missing port"},
	{"jdbc_url port 70000", with(nil, "jdbc_url", "jdbc:mysql://fe:70000/db"), "jdbc_url has a port outside 1..65535", "jdbc_url", "port must be 1..65535"},
	{"two selections", with(nil, "tables", `["shop.a"]`), "exactly one of table_identifier, tables and include must be set", "table_identifier", "exactly one of"},
	{"no selection", with(nil, "table_identifier", "-"), "exactly one of table_identifier, tables and include must be set", "table_identifier", "exactly one of"},
	{"exclude without include", with(nil, "exclude", `['shop\..*']`), "exclude is only valid together with include", "exclude", "only valid together with include"},
	{"tables entry not db.table", with(nil, "table_identifier", "-", "tables", `["shop.a", "b"]`), `tables entry 1 must be db.table; got "b"`, "tables", "entry 1"},
	{"tables listed twice", with(nil, "table_identifier", "-", "tables", "[shop.a, shop.a]"), "", "tables", "listed twice"},
	{"include bad regex", with(nil, "table_identifier", "-", "include", `['shop\..*', 'shop.(a']`), `include pattern 1 ("shop.(a") is not a valid regular expression`, "include", `pattern 1 ("shop.(a") is not a valid regular expression`},
	{"exclude bad regex", with(nil, "table_identifier", "-", "include", `[".*"]`, "exclude", `["a)|(b"]`), `exclude pattern 0 ("a)|(b") is not a valid regular expression`, "exclude", "pattern 0"},
	{"discovery negative", with(nil, "table_discovery_interval", "-1s"), "table_discovery_interval must not be negative", "table_discovery_interval", "must not be negative"},
	{"snapshot tables zero", with(nil, "max_parallel_snapshot_tables", "0"), "max_parallel_snapshot_tables must be at least 1", "max_parallel_snapshot_tables", "at least 1"},
	{"missing checkpoint_cache initial", with(nil, "scan_mode", "initial"), "checkpoint_cache is required when scan_mode is initial", "checkpoint_cache", "required when scan_mode is initial"},
	{"missing checkpoint_cache latest", with(nil, "scan_mode", "LATEST"), "checkpoint_cache is required when scan_mode is latest", "checkpoint_cache", "required when scan_mode is latest"},
	{"unknown cache", with(incr, "checkpoint_cache", "nope"), "", "checkpoint_cache", "unknown cache resource: nope"},
	{"fenodes without port", with(nil, "fenodes", "fe1"), `fenodes entry "fe1" must be host:http_port`, "fenodes", "must be host:http_port"},
	{"fenodes port 0", with(nil, "fenodes", "fe1:0"), `fenodes entry "fe1:0" has a port outside 1..65535`, "fenodes", "outside 1..65535"},
	{"fenodes port 70000", with(nil, "fenodes", "fe1:8030,fe2:70000"), `fenodes entry "fe2:70000" has a port outside 1..65535`, "fenodes", "outside 1..65535"},
	{"fenodes empty entry", with(nil, "fenodes", `"fe1:8030,,fe2:8030"`), `fenodes entry "" must be host:http_port`, "fenodes", "must be host:http_port"},
	{"table_identifier without dot", with(nil, "table_identifier", "orders"), `table_identifier must be db.table; got "orders"`, "table_identifier", "must be db.table"},
	{"table_identifier three parts", with(nil, "table_identifier", "internal.shop.orders"), "table_identifier must be db.table", "table_identifier", "must be db.table"},
	{"table_identifier empty part", with(nil, "table_identifier", "shop."), "table_identifier must be db.table", "table_identifier", "must be db.table"},
	{"use_flight_sql false with initial", with(incr, "use_flight_sql", "false"), "incremental scan modes require use_flight_sql=true", "use_flight_sql", "require use_flight_sql=true"},
	{"flight_sql_port 70000", with(nil, "flight_sql_port", "70000"), "flight_sql_port must be 0 (discover) or 1..65535", "flight_sql_port", "1..65535"},
	{"flight_sql_port -1", with(nil, "flight_sql_port", "-1"), "flight_sql_port must be 0 (discover) or 1..65535; got -1", "flight_sql_port", "1..65535"},
	{"request_tablet_size 0", with(nil, "request_tablet_size", "0"), "request_tablet_size must be at least 1", "request_tablet_size", "at least 1"},
	{"snapshot_query_rows -1", with(nil, "snapshot_query_rows", "-1"), "snapshot_query_rows must be 0 or more", "snapshot_query_rows", "0 or more"},
	{"batch_size 0", with(nil, "batch_size", "0"), "batch_size must be at least 1", "batch_size", "at least 1"},
	{"checkpoint_limit 0", with(nil, "checkpoint_limit", "0"), "checkpoint_limit must be at least 1", "checkpoint_limit", "at least 1"},
	{"request_retries 0", with(nil, "request_retries", "0"), "request_retries must be at least 1", "request_retries", "at least 1"},
	{"max_parallel_snapshot_splits 0", with(nil, "max_parallel_snapshot_splits", "0"), "max_parallel_snapshot_splits must be at least 1", "max_parallel_snapshot_splits", "at least 1"},
	{"bad exec_mem_limit unit", with(nil, "exec_mem_limit", "8tb"), "exec_mem_limit must be bytes or a size such as 8192mb", "exec_mem_limit", "must be bytes"},
	{"exec_mem_limit zero", with(nil, "exec_mem_limit", "0mb"), "exec_mem_limit must be bytes", "exec_mem_limit", "must be positive"},
	{"exec_mem_limit overflow", with(nil, "exec_mem_limit", "99999999999999999gb"), "", "exec_mem_limit", "too large"},
	{"read_field empty column", with(nil, "read_field", `"id,,name"`), "read_field must be a comma-separated list of column names", "read_field", "comma-separated"},
	{"request_query_timeout zero", with(nil, "request_query_timeout", "0s"), "request_query_timeout must be positive", "request_query_timeout", "must be positive"},
	{"empty username", with(nil, "username", `""`), "", "username", "must not be empty"},
	{"empty checkpoint key", with(incr, "checkpoint_cache_key", `""`), "checkpoint_cache_key must not be empty", "checkpoint_cache_key", "must not be empty"},
	{"checkpoint_accept_cluster_id not a number", with(incr, "checkpoint_accept_cluster_id", `"cluster-a"`), "checkpoint_accept_cluster_id must be a Doris cluster id", "checkpoint_accept_cluster_id", `must be a Doris cluster id, a positive integer as SHOW FRONTENDS prints it; got "cluster-a"`},
	{"checkpoint_accept_cluster_id 0", with(incr, "checkpoint_accept_cluster_id", `"0"`), "", "checkpoint_accept_cluster_id", `positive integer as SHOW FRONTENDS prints it; got "0"`},
	{"max_flight_sessions 0", with(nil, "max_flight_sessions", "0"), "max_flight_sessions must be at least 1; got 0", "max_flight_sessions", "at least 1"},
	{"max_flight_sessions -3", with(nil, "max_flight_sessions", "-3"), "max_flight_sessions must be at least 1; got -3", "max_flight_sessions", "at least 1"},
	{"max_flight_sessions 101", with(nil, "max_flight_sessions", "101"), "max_flight_sessions must be at most 100, Doris's default max_user_connections", "max_flight_sessions", "must be at most 100, Doris's default max_user_connections"},
	{"max_flight_sessions 100 with the offset table", with(incr, "binlog_offset_table", "ops.offsets", "binlog_consumer_id", "c1", "jdbc_url", "jdbc:mysql://fe:9030", "max_flight_sessions", "100"), "max_flight_sessions must be at most 99 with binlog_offset_table: its MySQL connection and the Flight sessions count together against Doris's default max_user_connections (100); got 100", "max_flight_sessions", "at most 99 with binlog_offset_table"},
	{"max_flight_sessions 150 with the offset table", with(incr, "binlog_offset_table", "ops.offsets", "binlog_consumer_id", "c1", "jdbc_url", "jdbc:mysql://fe:9030", "max_flight_sessions", "150"), "max_flight_sessions must be at most 100", "max_flight_sessions", "at most 99 with binlog_offset_table"},
}

func TestInvalidConfigs(t *testing.T) {
	for _, tc := range invalidCases {
		t.Run(tc.name, func(t *testing.T) {
			body := configYAML(tc.over)
			lintErr := lintInput(t, body)
			if tc.lint != "" {
				if lintErr == nil || !strings.Contains(lintErr.Error(), tc.lint) {
					t.Errorf("lint error %v, want it to contain %q\n%s", lintErr, tc.lint, body)
				}
			}
			if lintErr != nil && strings.Contains(lintErr.Error(), testPassword) {
				t.Errorf("lint error leaks the password: %v", lintErr)
			}
			conf, err := parseInput(t, body)
			if err == nil {
				t.Fatalf("parseConfig accepted %s as %+v", body, conf)
			}
			if !strings.Contains(err.Error(), "field "+tc.field+":") || !strings.Contains(err.Error(), tc.parse) {
				t.Errorf("parse error %q, want field %s and %q", err, tc.field, tc.parse)
			}
			if strings.Contains(err.Error(), testPassword) {
				t.Errorf("parse error leaks the password: %v", err)
			}
		})
	}
}

func TestValidConfigsLintClean(t *testing.T) {
	for _, over := range []map[string]string{
		nil,
		with(incr, "binlog_increment_type", "MIN_DELTA", "binlog_on_expired", "Fail"),
		with(nil, "scan_mode", "from-timestamp", "scan_timestamp", `"2025-10-09 08:53:20"`, "checkpoint_cache", "cp"),
		with(incr, "scan_mode", "latest", "binlog_offset_table", "ops.offsets", "binlog_consumer_id", "c1", "jdbc_url", `"jdbc:mysql://[::1]:9030/ops?useSSL=false&password=x"`),
		with(nil, "fenodes", `"fe1:8030, [::1]:8030"`, "read_field", `"id, name"`, "filter_query", `"id > 5"`, "exec_mem_limit", "512"),
		with(incr, "binlog_visible_wait_timeout", "0s", "flight_sql_port", "8070"),
		with(nil, "scan_mode", "from-timestamp", "scan_timestamp", `"2024-02-29 23:59:59"`, "checkpoint_cache", "cp", "binlog_poll_interval", "1m30s", "binlog_visible_wait_timeout", "1.5h"),
		with(incr, "table_identifier", "-", "include", `['shop\..*', 'ops\.audit_.*']`, "exclude", `['shop\.tmp_.*']`),
		with(nil, "table_identifier", "-", "tables", `["shop.a", "shop.b"]`),
		with(nil, "table_identifier", "-", "include", `['shop\..*', 'crm\.(a|b)']`, "exclude", `['shop\.tmp_.*']`),
		with(nil, "max_flight_sessions", "1"),
		with(incr, "checkpoint_accept_cluster_id", `"1846299834"`),
		with(nil, "max_flight_sessions", "100"),
		with(incr, "binlog_offset_table", "ops.offsets", "binlog_consumer_id", "c1", "jdbc_url", "jdbc:mysql://fe:9030", "max_flight_sessions", "99"),
	} {
		body := configYAML(over)
		if err := lintInput(t, body); err != nil {
			t.Errorf("lint of a valid config failed: %v\n%s", err, body)
		}
		if _, err := parseInput(t, body); err != nil {
			t.Errorf("parse of a valid config failed: %v\n%s", err, body)
		}
	}
}

func TestDefaults(t *testing.T) {
	c, err := parseInput(t, configYAML(nil))
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		FENodes: []string{"127.0.0.1:8030"}, Selection: selection{fixed: []tableName{newTableName("shop", "orders")}},
		DiscoveryInterval: time.Minute, MaxParallelSnapshotTables: 4,
		Username: "root", Password: testPassword,
		ScanMode: "snapshot", SnapshotConsistency: "best", IncrementType: "DETAIL",
		PollInterval: 10 * time.Second, VisibleWaitTimeout: 5 * time.Minute,
		OnExpired: "continue", UseFlightSQL: true, SkipIdleTables: true,
		RequestTabletSize: 1, SnapshotQueryRows: 100000, BatchSize: 4064, MaxParallelSnapshotSplits: 2, MaxFlightSessions: 16,
		QueryTimeout: 6 * time.Hour, ExecMemLimit: 8192 << 20, Retries: 3,
		ConnectTimeout: time.Minute, ReadTimeout: time.Minute,
		CheckpointKey: "doris_binlog_shop.orders", LegacyCheckpointKey: "doris_binlog_shop_orders", CheckpointLimit: 1024,
	}
	if c.TLS != nil || c.TLSEnabled {
		t.Errorf("TLS enabled by default")
	}
	c.TLS = nil
	if !equalConfig(*c, want) {
		t.Fatalf("defaults:\n got %+v\nwant %+v", *c, want)
	}
	if !c.HasSnapshotPhase() || c.HasBinlogPhase() {
		t.Fatal("snapshot mode phases")
	}
}

func equalConfig(a, b Config) bool {
	return reflect.DeepEqual(a, b)
}

func TestParseFullConfig(t *testing.T) {
	c, err := parseInput(t, configYAML(with(nil,
		"fenodes", `"fe1:8030, fe2:8031"`,
		"scan_mode", "From-Timestamp",
		"scan_timestamp", `"2025-10-09 08:53:20"`,
		"binlog_increment_type", "Append_Only",
		"binlog_poll_interval", "2s",
		"binlog_visible_wait_timeout", "0s",
		"binlog_on_expired", "FAIL",
		"binlog_offset_table", "ops.offsets",
		"binlog_consumer_id", `"orders/to kafka"`,
		"jdbc_url", "jdbc:mysql://fe1:9030/ops",
		"flight_sql_port", "8070",
		"read_field", `"id, status"`,
		"checkpoint_cache", "cp",
		"checkpoint_limit", "10",
		"tls", "{enabled: true, skip_cert_verify: true}",
	)))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.FENodes, []string{"fe1:8030", "fe2:8031"}) || c.ScanMode != "from-timestamp" ||
		c.ScanTimestamp != "2025-10-09 08:53:20" || c.IncrementType != "APPEND_ONLY" ||
		c.PollInterval != 2*time.Second || c.VisibleWaitTimeout != 0 || c.OnExpired != "fail" ||
		c.OffsetTable != "ops.offsets" || c.ConsumerID != "orders/to kafka" ||
		c.JDBCURL != "jdbc:mysql://fe1:9030/ops" || c.FlightSQLPort != 8070 ||
		!slices.Equal(c.ReadFields, []string{"id", "status"}) || c.CheckpointLimit != 10 {
		t.Fatalf("unexpected config %+v", c)
	}
	// The consumer id becomes the key, made safe for the file cache.
	if c.CheckpointKey != "orders_to_kafka" {
		t.Errorf("checkpoint key %q", c.CheckpointKey)
	}
	if !c.TLSEnabled || c.TLS == nil || !c.TLS.InsecureSkipVerify {
		t.Errorf("tls not parsed: %v %+v", c.TLSEnabled, c.TLS)
	}
	if !c.HasBinlogPhase() || c.HasSnapshotPhase() {
		t.Error("from-timestamp phases")
	}
}

func TestCheckpointKeyDerivation(t *testing.T) {
	for _, tc := range []struct {
		over map[string]string
		want string
	}{
		{with(incr, "table_identifier", "my-db.Order$s"), "doris_binlog_my--db.-order-044s"},
		{with(incr, "table_identifier", "-", "tables", "[shop.orders]"), "doris_binlog_shop.orders"},
		{with(incr, "table_identifier", "-", "tables", "[shop.b, shop.a]"), defaultCheckpointKey(&selection{fixed: []tableName{newTableName("shop", "a"), newTableName("shop", "b")}})},
		{with(incr, "table_identifier", "-", "include", `['shop\..*']`), checkpoint.SelectionKey(`include ["shop\\..*"] exclude []`)},
		{with(incr, "checkpoint_cache_key", "custom.key"), "custom.key"},
		{with(incr, "scan_mode", "latest", "binlog_consumer_id", "c:1", "binlog_offset_table", "o.t", "jdbc_url", "jdbc:mysql://h:9030"), "c_1"},
	} {
		c, err := parseInput(t, configYAML(tc.over))
		if err != nil {
			t.Fatal(err)
		}
		if c.CheckpointKey != tc.want {
			t.Errorf("key %q, want %q", c.CheckpointKey, tc.want)
		}
	}
}

func TestExecMemLimitUnits(t *testing.T) {
	for in, want := range map[string]int64{
		"1024": 1024, "10b": 10, "2k": 2 << 10, "2KB": 2 << 10, "3m": 3 << 20,
		"8192mb": 8192 << 20, "1g": 1 << 30, "4GB": 4 << 30, "5 Mb": 5 << 20,
	} {
		c, err := parseInput(t, configYAML(with(nil, "exec_mem_limit", `"`+in+`"`)))
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if c.ExecMemLimit != want {
			t.Errorf("%s = %d, want %d", in, c.ExecMemLimit, want)
		}
	}
}

func TestMissingRequiredFields(t *testing.T) {
	for _, f := range []string{"fenodes", "username"} {
		err := lintInput(t, configYAML(with(nil, f, "-")))
		if err == nil || !strings.Contains(err.Error(), f) {
			t.Errorf("missing %s: lint %v", f, err)
		}
	}
}

func TestSpecLintsItsExamples(t *testing.T) {
	// Parsing the spec's own examples and description guards against a typo
	// in a Bloblang lint rule, which would only surface as a lint error.
	env := service.NewEmptyEnvironment()
	if err := env.RegisterBatchInput("doris_binlog", Spec(), func(*service.ParsedConfig, *service.Resources) (service.BatchInput, error) {
		return nil, errTestCtor
	}); err != nil {
		t.Fatal(err)
	}
	for _, ex := range []string{exampleSnapshot, exampleInitial, exampleLatest} {
		i := strings.Index(ex, "doris_binlog:")
		j := strings.Index(ex, "cache_resources:")
		if j < 0 {
			j = strings.Index(ex, "output:")
		}
		block := strings.ReplaceAll(ex[i:j], "${DORIS_PASSWORD}", "pw")
		if err := env.NewStreamBuilder().AddInputYAML(block); err != nil {
			t.Errorf("example does not lint: %v\n%s", err, block)
		}
	}
}

// TestParseByteSizeBounds: the largest size that fits in int64 is
// accepted in every unit, one unit more is refused as too large.
func TestParseByteSizeBounds(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64 // 0: refused
	}{
		{"9223372036854775807", 1<<63 - 1},
		{"9223372036854775808", 0},
		{"8589934591g", 8589934591 << 30},
		{"8589934592g", 0},
		{"9007199254740991kb", 9007199254740991 << 10},
		{"9007199254740992kb", 0},
		{" 7 MB ", 7 << 20},
		{"007", 7},
	} {
		got, err := parseByteSize(tc.in)
		if tc.want == 0 {
			if err == nil || !strings.Contains(err.Error(), "too large") {
				t.Errorf("%q = %d, %v; want too large", tc.in, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
}

func TestScanModePhases(t *testing.T) {
	for mode, want := range map[string][2]bool{
		"snapshot": {true, false}, "initial": {true, true}, "latest": {false, true}, "from-timestamp": {false, true},
	} {
		c := &Config{ScanMode: mode}
		if c.HasSnapshotPhase() != want[0] || c.HasBinlogPhase() != want[1] {
			t.Errorf("%s: snapshot %v binlog %v, want %v", mode, c.HasSnapshotPhase(), c.HasBinlogPhase(), want)
		}
	}
}
