// Package changes turns Doris result batches into Benthos messages and
// orders them: the row converter, the pool that converts one table's
// binlog batches on several cores, the merging of update pairs, and the
// k-way merge of a window's tables in (TSO, table, LSN, OP) order. It
// knows nothing of queries, retries or checkpoints beyond positions; the
// input feeds it Arrow batches and takes the merged batches it emits.
package changes
