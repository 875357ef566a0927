package doris

// ColCommitTSO is the hidden column of a row-binlog table (Doris 5.0,
// apache/doris#64776) holding the commit TSO of each row's latest write.
// Doris shows it only to a session with show_hidden_columns = true.
const ColCommitTSO = "__DORIS_COMMIT_TSO_COL__"

// Session statements around a read of ColCommitTSO: a pooled session is
// given back as it was, so that a later `SELECT *` on it does not get
// Doris's hidden columns.
const (
	ShowHiddenColumnsOn  = "SET show_hidden_columns = true"
	ShowHiddenColumnsOff = "SET show_hidden_columns = false"
)

// SnapshotSQLAsOf is SnapshotSQL reading the table as of commit TSO asOf:
// “SELECT `id` FROM `db`.`t` FOR VERSION AS OF 123  TABLET(1,2) “ (the
// clause order Doris's DorisParser.g4 relationPrimary requires; the TSO is
// an integer literal, never an expression).
func SnapshotSQLAsOf(db, table string, cols []string, asOf int64, tablets []int64, filter string) string {
	return snapshotSQL(db, table, selectList(cols), asOf, tablets, filter)
}

// SnapshotSQLWithCommitTSO is SnapshotSQL with ColCommitTSO selected last,
// for a session that shows hidden columns (where `*` may hold it too, and
// the other hidden columns: the last column of that name is the one to
// read, and no __DORIS_ column is ever in a message body).
func SnapshotSQLWithCommitTSO(db, table string, cols []string, tablets []int64, filter string) string {
	return snapshotSQL(db, table, selectList(cols)+", "+QuoteIdent(ColCommitTSO), 0, tablets, filter)
}

// CommitTSOProbeSQL selects the hidden commit TSO column of no row: it
// answers whether the table has the column, which an FE that understands
// FOR VERSION AS OF on OLAP tables gives every row-binlog table.
func CommitTSOProbeSQL(db, table string) string {
	return "SELECT " + QuoteIdent(ColCommitTSO) + " FROM " + QualifiedTable(db, table) + " LIMIT 0"
}

// LastTSOBefore is the last TSO before epoch ms ms: what a snapshot that
// holds every commit before ms is read as of.
func LastTSOBefore(ms int64) int64 { return Compose(ms, 0) - 1 }
