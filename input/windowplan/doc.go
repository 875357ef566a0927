// Package windowplan holds the decisions of the binlog window chain that
// need no I/O: the typed window bounds, the end of the next window from
// the Doris time and the poll, the ends planned ahead of the checkpoint,
// how a failed read of a window is retried (wait, halve, or stop the
// input) and how long windows have been failing, whether a window starts
// before the binlog's retention, and which tables a window may leave out
// on the idle rule's verdict.
//
// It takes plain values and gives plain values back, so the rules are
// unit-tested here without a simulator; package input reads Doris, runs
// the chain and emits, and asks this package what to do at each step.
package windowplan
