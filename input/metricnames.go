package input

import "github.com/rpconnect-doris/rpconnect-doris/internal/metrichelp"

// The input's metric names, each with what it means and its unit: the
// prometheus exporter publishes the text as the metric's HELP, and the
// metrics table of docs/operating.md says the same.
var (
	metricRows = metrichelp.Describe("doris_binlog_rows_total",
		"Rows doris_binlog emitted, by table, phase (snapshot, binlog) and operation (read for snapshot rows; insert, update, update_before, update_after, delete for changes). Unit: rows.")
	metricLag = metrichelp.Describe("doris_binlog_lag_seconds",
		"Now minus the end of the last binlog window whose rows were all acknowledged, for the whole input, with millisecond resolution. Unit: seconds.")
	metricWindow = metrichelp.Describe("doris_binlog_window_seconds",
		"Time to read one binlog window of every streaming table, from the first @incr query to the last row handed on. Unit: seconds.")
	metricSplitsDone = metrichelp.Describe("doris_binlog_snapshot_splits_done",
		"Snapshot splits of a table already read and delivered, including those a restart skipped because the checkpoint holds them. Unit: splits.")
	metricSplits = metrichelp.Describe("doris_binlog_snapshot_splits",
		"Snapshot splits planned for a table (request_tablet_size tablets each); done equals planned when its snapshot is complete. Unit: splits.")
	metricExpiredGaps = metrichelp.Describe("doris_binlog_expired_gaps_total",
		"Binlog windows of a table that started before the oldest change Doris still keeps (binlog.ttl_seconds): changes were lost, see binlog_on_expired. Unit: windows.")
	metricTables = metrichelp.Describe("doris_binlog_tables",
		"Tables the input follows, by state: snapshotting, streaming (catching up or in the shared chain), skipped (matched by include but not followable). Unit: tables.")
	metricDroppedPartitions = metrichelp.Describe("doris_binlog_dropped_partitions_total",
		"Partitions of a table that vanished without change records (DROP or TRUNCATE PARTITION); their rows are not deleted downstream. Unit: partitions.")
	metricUnpairedUpdates = metrichelp.Describe("doris_binlog_unpaired_updates_total",
		"Update halves binlog_merge_updates could not pair with the other half and delivered as they were. Unit: update halves.")
	metricIdleSkipped = metrichelp.Describe("doris_binlog_idle_windows_skipped_total",
		"Table windows skip_idle_tables left out because the table had no new version (their @incr query was not run). Unit: table windows.")
	metricWindowRetries = metrichelp.Describe("doris_binlog_window_retries_total",
		"Failed attempts to read a table's binlog window; each is retried with backoff, split, or stops the input. Unit: attempts.")
	metricWindowRetryAge = metrichelp.Describe("doris_binlog_window_retry_age_seconds",
		"How long the oldest binlog window still failing has been retried; 0 when none is. Unit: seconds.")
	metricHeadroom = metrichelp.Describe("doris_binlog_retention_headroom_seconds",
		"A table's binlog.ttl_seconds minus the age of its position (the oldest change it still needs): the time left before Doris drops changes the input has not read. Negative once they expired. Tables that keep their binlog for ever (ttl <= 0) and finished snapshot-only tables have no series. Unit: seconds.")
	metricHeadroomMin = metrichelp.Describe("doris_binlog_retention_headroom_min_seconds",
		"The smallest doris_binlog_retention_headroom_seconds over the tables that have one: the time left before the first table loses changes. Unit: seconds.")
)
