// Package txmarkers builds and recognizes the transaction markers of
// doris_binlog (include_transaction_markers): a `begin` message before a
// Doris transaction's changes and a `commit` message after them. Outputs
// (doris_load, kafka_franz) use it to tell markers from changes.
package txmarkers
