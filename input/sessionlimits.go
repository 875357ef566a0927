package input

import "strconv"

// Doris counts every Arrow Flight SQL session and every MySQL connection
// of a user against that user's max_user_connections on each FE (default
// 100, docs/doris-connection-limits.md A.1, doris-facts §17.1), and refuses
// the one over it. The input's share of that budget is max_flight_sessions
// plus its own MySQL connections.
const (
	// dorisDefaultMaxUserConnections is CommonUserProperties.maxConn.
	dorisDefaultMaxUserConnections = 100
	// offsetPublisherConnections is the MySQL pool of binlog_offset_table
	// (doris.NewOffsetPublisher: SetMaxOpenConns(1)).
	offsetPublisherConnections = 1
	// defaultMaxFlightSessions leaves most of the default 100 to the rest
	// of the user's clients: a few instances with disjoint selections, a
	// doris cache (4 MySQL connections), BI tools. It is still above what
	// the default snapshot parallelism uses (4 tables × 2 splits), and a
	// window over up to 16 tables streams with a session each.
	defaultMaxFlightSessions = 16
)

// maxFlightSessionsFor is the highest max_flight_sessions that fits the
// default max_user_connections next to the input's MySQL connections.
func maxFlightSessionsFor(offsetTable bool) int {
	if offsetTable {
		return dorisDefaultMaxUserConnections - offsetPublisherConnections
	}
	return dorisDefaultMaxUserConnections
}

// checkSessionLimit is the constructor's form of the lint rules on
// max_flight_sessions (maxFlightSessionsLint and the spec-wide rule).
func (c *Config) checkSessionLimit() error {
	n, most := c.MaxFlightSessions, maxFlightSessionsFor(c.OffsetTable != "")
	switch {
	case n < 1:
		return fieldErrf(fieldMaxFlightSessions, "%s must be at least 1; got %d", fieldMaxFlightSessions, n)
	case n > most:
		return fieldErrf(fieldMaxFlightSessions, tooManySessionsFormat(c.OffsetTable != ""), n)
	}
	return nil
}

// tooManySessionsFormat is the message for a value over the limit, with
// one %v for the value: the constructor's and lint's alike.
func tooManySessionsFormat(offsetTable bool) string {
	most := strconv.Itoa(maxFlightSessionsFor(offsetTable))
	if offsetTable {
		return fieldMaxFlightSessions + " must be at most " + most + " with binlog_offset_table: its MySQL connection and the Flight sessions count together against Doris's default max_user_connections (" +
			strconv.Itoa(dorisDefaultMaxUserConnections) + "); got %v"
	}
	return fieldMaxFlightSessions + " must be at most " + most + ", Doris's default max_user_connections, which counts every Flight session and MySQL connection of a user on an FE; got %v"
}

// maxFlightSessionsLint is the field's own rule; the spec-wide rule adds
// the MySQL connection of binlog_offset_table.
var maxFlightSessionsLint = `root = if this < 1 { [ ` + strconv.Quote(fieldMaxFlightSessions+" must be at least 1; got %v") + `.format(this) ] } ` +
	`else if this > ` + strconv.Itoa(maxFlightSessionsFor(false)) + ` { [ ` + strconv.Quote(tooManySessionsFormat(false)) + `.format(this) ] }`

// maxFlightSessionsSpecLint is the spec-wide part: with
// binlog_offset_table one connection of the budget is MySQL's.
var maxFlightSessionsSpecLint = `if $offset && this.` + fieldMaxFlightSessions + `.or(0) == ` + strconv.Itoa(maxFlightSessionsFor(false)) + ` { ` +
	strconv.Quote(tooManySessionsFormat(true)) + `.format(this.` + fieldMaxFlightSessions + `) } else { "" }`

const maxFlightSessionsDoc = "The most Arrow Flight SQL sessions the input keeps open at once, idle ones included: snapshot splits, their count queries, " +
	"the publish barrier before a snapshot, and binlog windows all take their sessions from this one pool, and a reader past the limit waits for a session to be handed back. " +
	"Doris counts every Flight session and every MySQL connection of a user against the user's `max_user_connections` on each FE (default 100) and refuses the one over it " +
	"(`Reach limit of connections`; older releases evicted the oldest session's token instead). " +
	"The input's share is this value plus its MySQL connections: 1 with `binlog_offset_table`, none without. So this plus that connection may not exceed 100, and lint refuses more. " +
	"Everything else that logs in as the same user on the same FE shares the rest: other instances of this input (see Scaling out in docs/operating.md), a `doris` cache (up to 4 MySQL connections), " +
	"BI tools and loads. Size it so that the sum over all of them stays under `max_user_connections` (and `qe_max_connection`, 1024, over every user of the FE). " +
	"The default 16 leaves most of the 100 to the rest, and is more than the default snapshot parallelism uses (`max_parallel_snapshot_tables` × `max_parallel_snapshot_splits` = 8). " +
	"A binlog window over at most this many tables reads each table on a session of its own and merges them as they come. " +
	"A window over more tables reads them at most this many at a time, each table's part whole, holding what is read as Arrow record batches until all are read, then merges them into the same (TSO, table, LSN, OP) order. " +
	"That buffer is bounded: when a window's Arrow data passes 256 MiB (plus at most one record batch per session being read), the window is read again as two consecutive halves, split down to one second. " +
	"A one-second window over the bound reads only its tables with changes, each on a session of its own; when more tables than this changed in that one second, the input stops with an error naming this field and how many sessions that second needs.\n\n" +
	"Example: four instances of this input with the default 16, one with `binlog_offset_table` (1 MySQL connection), and a `doris` cache (4) under one user hold at most 4 × 16 + 1 + 4 = 69 of the 100."
