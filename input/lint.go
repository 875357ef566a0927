package input

import (
	"strconv"
	"strings"
)

// Lint rules. Each message names its field so that a lint report can be
// acted on without reading the docs.

func enumLint(field string, opts ...string) string {
	quoted := make([]string, len(opts))
	for i, o := range opts {
		quoted[i] = strconv.Quote(o)
	}
	msg := field + " must be one of " + strings.Join(opts, ", ") + "; got %q"
	return `root = if ![` + strings.Join(quoted, ", ") + `].contains(this.string().lowercase()) { [ ` +
		strconv.Quote(msg) + `.format(this.string()) ] }`
}

// Lint rules use only core Bloblang methods: plugin methods such as
// parse_duration may not be registered yet when Spec() runs in an init().

func timestampLint(field string) string {
	return `let s = this.string()
let ok = $s.re_match("^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01]) ([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]$")
let ymd = if $ok { $s.split(" ").index(0).split("-").map_each(p -> p.number()) } else { [1, 1, 1] }
let y = $ymd.index(0)
let leap = $y % 4 == 0 && ($y % 100 != 0 || $y % 400 == 0)
let days = if $ymd.index(1) == 2 { if $leap { 29 } else { 28 } } else if [4, 6, 9, 11].contains($ymd.index(1)) { 30 } else { 31 }
root = if !$ok || $ymd.index(2) > $days { [ ` + strconv.Quote(field+" must match yyyy-MM-dd HH:mm:ss; got %q") + `.format($s) ] }`
}

// durationNs evaluates a Go duration string to nanoseconds in Bloblang;
// $ok is false when the string is not one.
const durationNs = `let s = this.string()
let ok = $s == "0" || $s.re_match("^[-+]?(([0-9]+(\\.[0-9]*)?|\\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+$")
let units = {"ns": 1, "us": 1000, "µs": 1000, "μs": 1000, "ms": 1000000, "s": 1000000000, "m": 60000000000, "h": 3600000000000}
let abs = if $ok && $s != "0" { $s.re_find_all_submatch("([0-9]*\\.?[0-9]*)(ns|us|µs|μs|ms|s|m|h)").map_each(g -> g.index(1).number() * $units.get(g.index(2))).sum() } else { 0 }
let ns = if $s.has_prefix("-") { 0 - $abs } else { $abs }
`

func minDurationLint(field string, minNs int64, what string) string {
	return durationNs + `root = if !$ok { [ ` +
		strconv.Quote(field+" must be a duration such as 10s; got %q") + `.format($s) ] } ` +
		`else if $ns < ` + strconv.FormatInt(minNs, 10) + ` { [ ` +
		strconv.Quote(field+" "+what+"; got %q") + `.format($s) ] }`
}

// Lists are linted by the spec-wide rule: a field rule on a list sees one
// element at a time, without its index.

// patternLint compiles each pattern of a list field as Go does (re_match
// uses Go's regexp) and lists the index and reason of any that fails.
func patternLint(field string) string {
	return `this.` + field + `.or([]).enumerated().map_each(e -> "".re_match(e.value.string()).catch(err -> ` +
		strconv.Quote(field+" pattern %d (%q) is not a valid regular expression: %s") +
		`.format(e.index, e.value.string(), err))).filter(r -> r.type() == "string")`
}

// tablesLint checks that every tables entry is db.table, trimmed as
// parseFixedTables trims it.
const tablesLint = `this.tables.or([]).enumerated().map_each(e -> if !e.value.string().trim().re_match("` + dbTableRe + `") { ` +
	`"tables entry %d must be db.table; got %q".format(e.index, e.value.string()) } else { "" }).filter(m -> m != "")`

func minIntLint(field string) string {
	return `root = if this < 1 { [ ` + strconv.Quote(field+" must be at least 1; got %v") + `.format(this) ] }`
}

// dbTableRe is a Bloblang string literal body matching db.table, each part
// bare or backtick-quoted, as doris.ParseTableIdentifier accepts: a bare
// part has no dot or backtick and no white space at either end.
const dbTableRe = `^(` + dbTablePartRe + `)\\.(` + dbTablePartRe + `)$`

const dbTablePartRe = "`(``|[^`])+`" + `|[^.\\s` + "`" + `]([^.` + "`" + `]*[^.\\s` + "`" + `])?`

func dbTableLint(field string) string {
	value := "this.string()"
	if field == fieldTableIdentifier {
		value += ".trim()" // parseFixedTables trims; binlog_offset_table is taken as written
	}
	return `root = if !` + value + `.re_match("` + dbTableRe + `") { [ ` +
		strconv.Quote(field+" must be db.table; got %q") + `.format(this.string()) ] }`
}

// jdbcLint mirrors doris.ParseJDBCURL, the one rule for jdbc_url (a test
// holds them to the same answers): a case-insensitive prefix, one host, a
// required port, an optional database and key=value parameters with valid
// %-escapes, and no '@' anywhere (user info). It never echoes the URL: it may carry a password.
const jdbcLint = `let ok = this.string().re_match("(?i)^jdbc:mysql://(\\[[0-9A-Fa-f:.]+\\]|[^:/?\\s\\[\\],@]+):[0-9]{1,5}(/([^/?%\\s@]|%[0-9A-Fa-f]{2})*)?(\\?([^=&%\\s@]|%[0-9A-Fa-f]{2})+=([^&%\\s@]|%[0-9A-Fa-f]{2})*(&([^=&%\\s@]|%[0-9A-Fa-f]{2})+=([^&%\\s@]|%[0-9A-Fa-f]{2})*)*)?$")
let port = if $ok { this.string().re_replace_all("(?i)^jdbc:mysql://(\\[[^\\]]*\\]|[^:/?]*):([0-9]+).*$", "$2").number() } else { 0 }
root = if !$ok { [ "jdbc_url must look like jdbc:mysql://host:port[/db][?k=v]" ] } else if $port < 1 || $port > 65535 { [ "jdbc_url has a port outside 1..65535" ] }`

var specLintRule = `let lists = [` + tablesLint + `, ` + patternLint(fieldInclude) + `, ` + patternLint(fieldExclude) + `].flatten()
let mode = this.scan_mode.or("snapshot").string().lowercase()
let incr = ["initial", "latest", "from-timestamp"].contains($mode)
let offset = this.binlog_offset_table.or("") != ""
let consumer = this.binlog_consumer_id.or("") != ""
let selected = [this.table_identifier.or("") != "", this.tables.or([]).length() > 0, this.include.or([]).length() > 0].filter(v -> v).length()
root = [
  if $selected != 1 { "exactly one of table_identifier, tables and include must be set" } else { "" },
  if this.exclude.or([]).length() > 0 && this.include.or([]).length() == 0 { "exclude is only valid together with include" } else { "" },
  if this.scan_timestamp.or("") != "" && $mode != "from-timestamp" { "scan_timestamp is only valid in from-timestamp mode" } else { "" },
  if $mode == "from-timestamp" && this.scan_timestamp.or("") == "" { "scan_timestamp is required when scan_mode is from-timestamp" } else { "" },
  if $incr && this.filter_query.or("") != "" { "incremental scan modes (initial, latest, from-timestamp) do not support filter_query" } else { "" },
  if this.binlog_filter.or("") != "" && !$incr { "binlog_filter is only valid in incremental scan modes (initial, latest, from-timestamp)" } else { "" },
  if this.include_transaction_markers.or(false) && !$incr { "include_transaction_markers is only valid in incremental scan modes (initial, latest, from-timestamp): a snapshot has no transactions" } else { "" },
  if this.binlog_merge_updates.or(false) && this.binlog_ignore_update_before.or(false) { "binlog_merge_updates and binlog_ignore_update_before conflict: merging needs the update_before rows" } else { "" },
  if $incr && this.use_flight_sql.or(true) == false { "incremental scan modes require use_flight_sql=true" } else { "" },
  if $offset != $consumer { "binlog_offset_table and binlog_consumer_id must be configured together" } else { "" },
  if $offset && !$incr { "binlog_offset_table is only valid in incremental scan modes" } else { "" },
  if this.signal_table.or("") != "" && !$incr { "signal_table is only valid in incremental scan modes (initial, latest, from-timestamp)" } else { "" },
  if $offset && this.jdbc_url.or("") == "" { "jdbc_url is required when binlog_offset_table is configured" } else { "" },
  if $incr && this.checkpoint_cache.or("") == "" { "checkpoint_cache is required when scan_mode is " + $mode } else { "" },
  ` + maxFlightSessionsSpecLint + `,
].merge($lists)`

// filterExprLint mirrors doris.ValidateFilterExpression's main rules for
// lint (a test holds them to the same answers on the common cases): quoted
// text is removed first, then no ';', no comment and no top-level clause
// keyword may remain. The constructor runs the full check.
func filterExprLint(field string) string {
	return `let bare = this.string().re_replace_all("'(?:[^'\\\\]|\\\\.)*'|\"(?:[^\"\\\\]|\\\\.)*\"|` + "`[^`]*`" + `", "''")
root = if this.string().trim() == "" { [ "` + field + ` must not be empty" ] } else if $bare.contains(";") { [ "` + field + `: statement separator ';' is not allowed" ] } else if $bare.re_match("--|#|/\\*|\\*/") { [ "` + field + `: comments are not allowed" ] } else if $bare.re_match("(?i)\\b(UNION|INTERSECT|EXCEPT|MINUS|ORDER|GROUP|HAVING|LIMIT|INTO|QUALIFY|WINDOW)\\b") && !$bare.re_match("\\(") { [ "` + field + `: must be one condition, without UNION, ORDER BY, LIMIT or similar" ] }`
}
