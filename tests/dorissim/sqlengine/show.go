package sqlengine

import (
	"sort"
	"strconv"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

var charType = storage.Type{Kind: storage.Char, Length: 255}
var varcharType = storage.Type{Kind: storage.Varchar, Length: 65533}

// frontendColumns is the SHOW FRONTENDS header (doris-facts §1.3).
var frontendColumns = []string{
	"Name", "Host", "EditLogPort", "HttpPort", "QueryPort", "RpcPort", "ArrowFlightSqlPort",
	"Role", "IsMaster", "ClusterId", "Join", "Alive", "ReplayedJournalId", "LastStartTime",
	"LastHeartbeat", "IsHelper", "ErrMsg", "Version", "CurrentConnected",
}

// show answers the Doris SHOW commands; other SHOW statements go to GMS.
func show(s *Session, c *cursor) (*Result, bool, error) {
	switch {
	case c.accept("create", "table"):
		r, err := showCreateTable(s, c)
		return r, true, err
	case c.accept("partitions"):
		r, err := showPartitions(s, c)
		return r, true, err
	case c.accept("tablets"):
		r, err := showTablets(s, c)
		return r, true, err
	case c.accept("frontends"):
		return showFrontends(s), true, nil
	case c.accept("databases"), c.accept("schemas"):
		return showDatabases(s), true, nil
	case c.accept("tables"), c.accept("full", "tables"):
		r, err := showTables(s, c)
		return r, true, err
	}
	return nil, false, nil
}

func showCreateTable(s *Session, c *cursor) (*Result, error) {
	db, table, ok := c.tableName()
	if !ok {
		return nil, errSyntax("Syntax error in SHOW CREATE TABLE near %s", c.near())
	}
	db, err := qualify(s, db)
	if err != nil {
		return nil, err
	}
	info, err := s.eng.store.Table(db, table)
	if err != nil {
		return nil, err
	}
	cols := []ResultColumn{{Name: "Table", Type: varcharType}, {Name: "Create Table", Type: varcharType}}
	return staticResult(cols, [][]any{{info.Def.Name, info.ShowCreate}}), nil
}

func showFrontends(s *Session) *Result {
	fe := s.eng.cfg.Frontend()
	host := fe.Host
	if host == "" {
		host = "127.0.0.1"
	}
	start := time.UnixMilli(s.eng.store.CurrentTSO().PhysicalMs).UTC().Format("2006-01-02 15:04:05")
	vals := []string{
		"fe_" + host + "_" + strconv.Itoa(fe.EditLogPort), host, strconv.Itoa(fe.EditLogPort),
		strconv.Itoa(fe.HTTPPort), strconv.Itoa(fe.QueryPort), strconv.Itoa(fe.RPCPort),
		strconv.Itoa(fe.ArrowFlightSQLPort), "FOLLOWER", "true", strconv.Itoa(int(fe.ClusterID)), "true", "true", "0",
		start, start, "true", "", "doris-5.0.0-dorissim", "Yes",
	}
	cols := make([]ResultColumn, len(frontendColumns))
	row := make([]any, len(frontendColumns))
	for i, n := range frontendColumns {
		cols[i] = ResultColumn{Name: n, Type: charType, Nullable: true}
		row[i] = vals[i]
	}
	return staticResult(cols, [][]any{row})
}

func showDatabases(s *Session) *Result {
	names := append([]string{"information_schema"}, s.eng.store.Databases()...)
	sort.Strings(names)
	rows := make([][]any, 0, len(names))
	for i, n := range names {
		if i > 0 && names[i-1] == n {
			continue
		}
		rows = append(rows, []any{n})
	}
	return staticResult([]ResultColumn{{Name: "Database", Type: varcharType}}, rows)
}

func showTables(s *Session, c *cursor) (*Result, error) {
	db := ""
	if c.accept("from") || c.accept("in") {
		name, ok := c.ident()
		if !ok {
			return nil, errSyntax("Syntax error in SHOW TABLES near %s", c.near())
		}
		db = name
	}
	db, err := qualify(s, db)
	if err != nil {
		return nil, err
	}
	names, err := s.eng.store.Tables(db)
	if err != nil {
		return nil, err
	}
	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	rows := make([][]any, len(sorted))
	for i, n := range sorted {
		rows[i] = []any{n}
	}
	return staticResult([]ResultColumn{{Name: "Tables_in_" + db, Type: varcharType}}, rows), nil
}
