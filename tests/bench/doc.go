// Package bench measures the doris_binlog input against dorissim: snapshot
// and binlog throughput, the MySQL-protocol and raw Flight baselines,
// commit-to-output latency, peak memory and CPU. `make bench` runs it (BENCH=1)
// and prints one table; `make bench-compare BASE=<commit>` compares the
// client CPU of two binaries in one sitting (TestCompareCPU). Without BENCH=1
// only the helper unit tests run.
package bench
