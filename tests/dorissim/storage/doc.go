// Package storage is the storage core of the Doris 5.0 simulator: Doris
// types and values, CREATE TABLE parsing, the catalog with Doris's
// validation texts, hash-bucketed tablets, the TSO oracle, transactions,
// the Row Binlog and `@incr` reads, and stream load. It has no SQL engine;
// tests/dorissim/sqlengine builds on it (see docs/contracts.md §1–§2).
package storage
