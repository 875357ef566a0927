// Package delivery owns the doris_binlog input's promise that an ack commits
// the highest contiguous position before it returns.
//
// A producer emits batches, each with the position that becomes durable once
// it and every batch emitted before it are acknowledged. An ordered tracker
// (Jeffail/checkpoint) finds that position whatever order acks arrive in, and
// the ack saves it before returning, so an acked message is never read again
// after a crash. A nack, with auto_replay_nacks off, rewinds: the run stops
// and the next one starts from the last committed position, sending its first
// batches one at a time. Shutdown waits for the acks of what is in flight.
//
// The package knows nothing of Doris: positions are an opaque type S.
package delivery
