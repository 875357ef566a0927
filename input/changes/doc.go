// Package changes turns Doris result batches into Benthos messages and
// orders them: the row converter, the k-way merge of a window's tables in
// (TSO, table, LSN, OP) order, the conversion of the merged rows on several
// cores, and the merging of update pairs. The merge orders rows by their
// positions alone and converts only what it emits, so a window's memory
// and CPU per row do not grow with the number of tables it reads. It knows
// nothing of queries, retries or checkpoints beyond positions; the input
// feeds it Arrow batches and takes the merged batches it emits.
package changes
