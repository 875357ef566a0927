package input

import (
	"crypto/tls"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// Config is the validated doris_binlog configuration.
type Config struct {
	FENodes            []string
	Selection          selection
	DiscoveryInterval  time.Duration // 0: tables are listed once, at start
	Username, Password string
	JDBCURL            string // raw, validated; empty when unset
	ScanMode           string // "snapshot"|"initial"|"latest"|"from-timestamp" (lower-cased)
	ScanTimestamp      string // validated yyyy-MM-dd HH:mm:ss, or ""
	// SnapshotConsistency is how exactly an initial snapshot meets the
	// binlog: consistencyExact, consistencyBest or consistencyAtLeastOnce.
	SnapshotConsistency string
	IncrementType       string // "DETAIL"|"MIN_DELTA"|"APPEND_ONLY"

	PollInterval, VisibleWaitTimeout time.Duration

	OnExpired                 string // "continue"|"fail"
	MergeUpdates              bool   // one "update" message per UB/UA pair
	TransactionMarkers        bool   // begin/commit markers around each TSO's changes (txnmarks.go)
	SkipIdleTables            bool   // leave tables whose partition versions did not move out of a window (idlewindow.go)
	IgnoreUpdateBefore        bool   // UB rows filtered out in Doris
	BinlogFilter              string // validated condition for every @incr query
	OffsetTable               string
	SignalTable               string // db.table key of the signal table, or ""
	ConsumerID                string
	UseFlightSQL              bool
	FlightSQLPort             int
	ReadFields                []string
	FilterQuery               string
	RequestTabletSize         int
	SnapshotQueryRows         int // 0: one query per split
	BatchSize                 int
	MaxParallelSnapshotSplits int
	MaxParallelSnapshotTables int
	MaxFlightSessions         int // sessions open at once, idle ones included

	QueryTimeout   time.Duration
	ExecMemLimit   int64
	Retries        int
	ConnectTimeout time.Duration
	ReadTimeout    time.Duration

	TLS        *tls.Config
	TLSEnabled bool
	// AllowPlaintextEndpoints: grpc+tcp Flight endpoints are dialled in
	// plaintext despite TLS.
	AllowPlaintextEndpoints bool

	DebugMetadata bool // the window bounds on binlog rows

	CheckpointCache, CheckpointKey string
	// LegacyCheckpointKey is where earlier builds kept the checkpoint of
	// the same selection under its default key; empty when the key was
	// configured, which is never carried over.
	LegacyCheckpointKey string
	CheckpointLimit     int
	// CheckpointAcceptCluster is the one foreign cluster id a stored
	// checkpoint may carry and still be resumed (see clusterguard.go).
	CheckpointAcceptCluster string
}

// HasBinlogPhase reports whether the mode follows the Row Binlog.
func (c *Config) HasBinlogPhase() bool {
	return c.ScanMode == "initial" || c.ScanMode == "latest" || c.ScanMode == "from-timestamp"
}

// HasSnapshotPhase reports whether the mode reads the table's content.
func (c *Config) HasSnapshotPhase() bool {
	return c.ScanMode == "snapshot" || c.ScanMode == "initial"
}

// parseConfig validates everything the lint rules check, because linting can
// be disabled. Errors name the field and never contain the password.
func parseConfig(pc *service.ParsedConfig, mgr *service.Resources) (*Config, error) {
	c := &Config{}
	for _, step := range []func(*service.ParsedConfig, *Config) error{
		parseConnection, parseSelection, parseModes, parseBinlog, parseRead, parseRequests, parseCheckpoint,
	} {
		if err := step(pc, c); err != nil {
			return nil, err
		}
	}
	if err := c.crossCheck(); err != nil {
		return nil, err
	}
	if c.CheckpointCache != "" && !mgr.HasCache(c.CheckpointCache) {
		return nil, fmt.Errorf("field %s: unknown cache resource: %s", fieldCheckpointCache, c.CheckpointCache)
	}
	return c, nil
}

var (
	fieldErr  = doris.FieldErr
	optString = doris.OptString
	parseEnum = doris.ParseEnum
)

func fieldErrf(field, format string, args ...any) error {
	return fmt.Errorf("field %s: "+format, append([]any{field}, args...)...)
}

func reqString(pc *service.ParsedConfig, field string) (string, error) {
	s, err := pc.FieldString(field)
	if err != nil {
		return "", fieldErr(field, err)
	}
	return s, nil
}

func parseConnection(pc *service.ParsedConfig, c *Config) error {
	conn, err := doris.ParseConnection(pc)
	if err != nil {
		return err
	}
	c.FENodes, c.Username, c.Password = conn.FENodes, conn.Username, conn.Password
	c.TLS, c.TLSEnabled = conn.TLS, conn.TLSEnabled
	if c.AllowPlaintextEndpoints, err = pc.FieldBool(fieldAllowPlaintextEndpoints); err != nil {
		return fieldErr(fieldAllowPlaintextEndpoints, err)
	}
	if c.JDBCURL, err = optString(pc, fieldJDBCURL); err != nil {
		return err
	}
	if c.JDBCURL != "" {
		if _, err := doris.ParseJDBCURL(c.JDBCURL); err != nil {
			return fieldErr(fieldJDBCURL, err)
		}
	}
	return nil
}

func parseModes(pc *service.ParsedConfig, c *Config) error {
	var err error
	if c.ScanMode, err = parseEnum(pc, fieldScanMode, "snapshot", "initial", "latest", "from-timestamp"); err != nil {
		return err
	}
	if c.SnapshotConsistency, err = parseEnum(pc, fieldSnapshotConsistency, consistencyValues...); err != nil {
		return err
	}
	if c.ScanTimestamp, err = optString(pc, fieldScanTimestamp); err != nil {
		return err
	}
	if c.ScanTimestamp != "" && doris.ValidateTimestamp(c.ScanTimestamp) != nil {
		return fieldErrf(fieldScanTimestamp, "scan_timestamp must match yyyy-MM-dd HH:mm:ss; got %q", c.ScanTimestamp)
	}
	return nil
}

func parseBinlog(pc *service.ParsedConfig, c *Config) error {
	inc, err := parseEnum(pc, fieldIncrementType, "detail", "min_delta", "append_only")
	if err != nil {
		return err
	}
	c.IncrementType = strings.ToUpper(inc)
	if c.PollInterval, err = parseDuration(pc, fieldPollInterval, time.Second, "must be at least 1 second"); err != nil {
		return err
	}
	if c.VisibleWaitTimeout, err = parseDuration(pc, fieldVisibleWaitTimeout, 0, "must not be negative"); err != nil {
		return err
	}
	if c.OnExpired, err = parseEnum(pc, fieldOnExpired, "continue", "fail"); err != nil {
		return err
	}
	if c.OffsetTable, err = optString(pc, fieldOffsetTable); err != nil {
		return err
	}
	if c.OffsetTable != "" {
		if _, _, err := doris.ParseTableIdentifier(c.OffsetTable); err != nil {
			return fieldErr(fieldOffsetTable, err)
		}
	}
	if c.SignalTable, err = optString(pc, fieldSignalTable); err != nil {
		return err
	}
	if c.SignalTable != "" {
		t, err := parseTableName(c.SignalTable)
		if err != nil {
			return fieldErr(fieldSignalTable, err)
		}
		c.SignalTable = t.key
	}
	if c.ConsumerID, err = optString(pc, fieldConsumerID); err != nil {
		return err
	}
	if c.SkipIdleTables, err = pc.FieldBool(fieldSkipIdleTables); err != nil {
		return fieldErr(fieldSkipIdleTables, err)
	}
	if c.MergeUpdates, err = pc.FieldBool(fieldMergeUpdates); err != nil {
		return fieldErr(fieldMergeUpdates, err)
	}
	if c.IgnoreUpdateBefore, err = pc.FieldBool(fieldIgnoreUpdateBefore); err != nil {
		return fieldErr(fieldIgnoreUpdateBefore, err)
	}
	if c.TransactionMarkers, err = pc.FieldBool(fieldTransactionMarkers); err != nil {
		return fieldErr(fieldTransactionMarkers, err)
	}
	if pc.Contains(fieldBinlogFilter) {
		if c.BinlogFilter, err = optString(pc, fieldBinlogFilter); err != nil {
			return err
		}
		if err := doris.ValidateFilterExpression(fieldBinlogFilter, c.BinlogFilter); err != nil {
			return fmt.Errorf("field %w", err)
		}
	}
	return nil
}

func parseRead(pc *service.ParsedConfig, c *Config) error {
	var err error
	if c.UseFlightSQL, err = pc.FieldBool(fieldUseFlightSQL); err != nil {
		return fieldErr(fieldUseFlightSQL, err)
	}
	if c.FlightSQLPort, err = pc.FieldInt(fieldFlightSQLPort); err != nil {
		return fieldErr(fieldFlightSQLPort, err)
	}
	if c.FlightSQLPort < 0 || c.FlightSQLPort > 65535 {
		return fieldErrf(fieldFlightSQLPort, "must be 0 (discover) or 1..65535; got %d", c.FlightSQLPort)
	}
	fields, err := optString(pc, fieldReadField)
	if err != nil {
		return err
	}
	if c.ReadFields, err = parseColumnList(fields); err != nil {
		return fieldErr(fieldReadField, err)
	}
	if c.FilterQuery, err = optString(pc, fieldFilterQuery); err != nil {
		return err
	}
	if pc.Contains(fieldFilterQuery) {
		if err := doris.ValidateFilterExpression(fieldFilterQuery, c.FilterQuery); err != nil {
			return fmt.Errorf("field %w", err)
		}
	}
	for _, f := range []struct {
		name string
		dst  *int
	}{
		{fieldRequestTabletSize, &c.RequestTabletSize},
		{fieldBatchSize, &c.BatchSize},
		{fieldMaxParallelSnapshotSplits, &c.MaxParallelSnapshotSplits},
		{fieldMaxParallelSnapshotTables, &c.MaxParallelSnapshotTables},
		{fieldMaxFlightSessions, &c.MaxFlightSessions},
	} {
		if *f.dst, err = parsePositiveInt(pc, f.name); err != nil {
			return err
		}
	}
	if c.SnapshotQueryRows, err = pc.FieldInt(fieldSnapshotQueryRows); err != nil {
		return fieldErr(fieldSnapshotQueryRows, err)
	}
	if c.SnapshotQueryRows < 0 {
		return fieldErrf(fieldSnapshotQueryRows, "%s must be 0 or more; got %d", fieldSnapshotQueryRows, c.SnapshotQueryRows)
	}
	return nil
}

func parseRequests(pc *service.ParsedConfig, c *Config) error {
	var err error
	if c.DebugMetadata, err = pc.FieldBool(fieldDebugMetadata); err != nil {
		return fieldErr(fieldDebugMetadata, err)
	}
	if c.QueryTimeout, err = parseDuration(pc, fieldQueryTimeout, 1, "must be positive"); err != nil {
		return err
	}
	mem, err := reqString(pc, fieldExecMemLimit)
	if err != nil {
		return err
	}
	if c.ExecMemLimit, err = parseByteSize(mem); err != nil {
		return fieldErr(fieldExecMemLimit, err)
	}
	if c.Retries, err = parsePositiveInt(pc, fieldRetries); err != nil {
		return err
	}
	if c.ConnectTimeout, err = parseDuration(pc, fieldConnectTimeout, 1, "must be positive"); err != nil {
		return err
	}
	c.ReadTimeout, err = parseDuration(pc, fieldReadTimeout, 1, "must be positive")
	return err
}

func parseCheckpoint(pc *service.ParsedConfig, c *Config) error {
	var err error
	if c.CheckpointCache, err = optString(pc, fieldCheckpointCache); err != nil {
		return err
	}
	if pc.Contains(fieldCheckpointKey) {
		if c.CheckpointKey, err = optString(pc, fieldCheckpointKey); err != nil {
			return err
		}
		if c.CheckpointKey == "" {
			return fieldErrf(fieldCheckpointKey, "must not be empty")
		}
	} else if c.ConsumerID != "" {
		c.CheckpointKey = checkpoint.SanitizeKey(c.ConsumerID)
	} else {
		c.CheckpointKey = defaultCheckpointKey(&c.Selection)
		c.LegacyCheckpointKey = legacyCheckpointKey(&c.Selection)
	}
	if c.CheckpointAcceptCluster, err = optString(pc, fieldCheckpointAcceptCluster); err != nil {
		return err
	}
	if id := c.CheckpointAcceptCluster; id != "" {
		if n, perr := strconv.ParseInt(id, 10, 32); perr != nil || n <= 0 {
			return fieldErrf(fieldCheckpointAcceptCluster, "must be a Doris cluster id, a positive integer as SHOW FRONTENDS prints it; got %q", id)
		}
	}
	c.CheckpointLimit, err = parsePositiveInt(pc, fieldCheckpointLimit)
	return err
}

// crossCheck applies the rules that involve more than one field, mirroring the
// spec lint rule.
func (c *Config) crossCheck() error {
	incr := c.HasBinlogPhase()
	switch {
	case c.ScanTimestamp != "" && c.ScanMode != "from-timestamp":
		return fieldErrf(fieldScanTimestamp, "scan_timestamp is only valid in from-timestamp mode")
	case c.ScanMode == "from-timestamp" && c.ScanTimestamp == "":
		return fieldErrf(fieldScanTimestamp, "scan_timestamp is required when scan_mode is from-timestamp")
	case incr && c.FilterQuery != "":
		return fieldErrf(fieldFilterQuery, "incremental scan modes (initial, latest, from-timestamp) do not support filter_query")
	case !incr && c.BinlogFilter != "":
		return fieldErrf(fieldBinlogFilter, "binlog_filter is only valid in incremental scan modes (initial, latest, from-timestamp)")
	case !incr && c.TransactionMarkers:
		return fieldErrf(fieldTransactionMarkers, "include_transaction_markers is only valid in incremental scan modes (initial, latest, from-timestamp): a snapshot has no transactions")
	case c.MergeUpdates && c.IgnoreUpdateBefore:
		return fieldErrf(fieldMergeUpdates, "binlog_merge_updates and binlog_ignore_update_before conflict: merging needs the update_before rows")
	case incr && !c.UseFlightSQL:
		return fieldErrf(fieldUseFlightSQL, "incremental scan modes require use_flight_sql=true")
	case (c.OffsetTable != "") != (c.ConsumerID != ""):
		return fieldErrf(fieldOffsetTable, "binlog_offset_table and binlog_consumer_id must be configured together")
	case c.OffsetTable != "" && !incr:
		return fieldErrf(fieldOffsetTable, "binlog_offset_table is only valid in incremental scan modes")
	case c.OffsetTable != "" && c.JDBCURL == "":
		return fieldErrf(fieldJDBCURL, "jdbc_url is required when binlog_offset_table is configured")
	case c.SignalTable != "" && !incr:
		return fieldErrf(fieldSignalTable, "signal_table is only valid in incremental scan modes (initial, latest, from-timestamp)")
	case c.SignalTable != "" && c.Selection.names(c.SignalTable):
		return fieldErrf(fieldSignalTable, "signal_table %s is also one of the tables: a signal table is never followed as data", c.SignalTable)
	case incr && c.CheckpointCache == "":
		return fieldErrf(fieldCheckpointCache, "checkpoint_cache is required when scan_mode is %s", c.ScanMode)
	}
	return c.checkSessionLimit()
}

func parseDuration(pc *service.ParsedConfig, field string, minimum time.Duration, what string) (time.Duration, error) {
	d, err := pc.FieldDuration(field)
	if err != nil {
		return 0, fieldErr(field, err)
	}
	if d < minimum {
		return 0, fieldErrf(field, "%s %s; got %s", field, what, d)
	}
	return d, nil
}

func parsePositiveInt(pc *service.ParsedConfig, field string) (int, error) {
	n, err := pc.FieldInt(field)
	if err != nil {
		return 0, fieldErr(field, err)
	}
	if n < 1 {
		return 0, fieldErrf(field, "%s must be at least 1; got %d", field, n)
	}
	return n, nil
}

func parseColumnList(s string) ([]string, error) {
	if s == "" {
		return nil, nil
	}
	var out []string
	for _, c := range strings.Split(s, ",") {
		c = strings.TrimSpace(c)
		if c == "" {
			return nil, fmt.Errorf("read_field must be a comma-separated list of column names; got %q", s)
		}
		out = append(out, c)
	}
	return out, nil
}

var byteUnits = map[string]int64{
	"": 1, "b": 1,
	"k": 1 << 10, "kb": 1 << 10,
	"m": 1 << 20, "mb": 1 << 20,
	"g": 1 << 30, "gb": 1 << 30,
}

var byteSizeRe = regexp.MustCompile(`^([0-9]+)\s*([A-Za-z]*)$`)

// parseByteSize reads plain bytes or a number with a binary unit.
func parseByteSize(s string) (int64, error) {
	m := byteSizeRe.FindStringSubmatch(strings.TrimSpace(s))
	bad := fmt.Errorf("exec_mem_limit must be bytes or a size such as 8192mb; got %q", s)
	if m == nil {
		return 0, bad
	}
	mult, ok := byteUnits[strings.ToLower(m[2])]
	if !ok {
		return 0, bad
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil || n > math.MaxInt64/mult {
		return 0, fmt.Errorf("exec_mem_limit %q is too large", s)
	}
	if n == 0 {
		return 0, fmt.Errorf("exec_mem_limit must be positive; got %q", s)
	}
	return n * mult, nil
}
