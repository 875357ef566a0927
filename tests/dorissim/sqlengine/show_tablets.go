package sqlengine

import (
	"net"
	"sort"
	"strconv"
	"strings"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// tabletFilter is SHOW TABLETS' WHERE clause: equalities on Version,
// BackendId and State joined by AND (ShowTabletsFromTableCommand.validate).
type tabletFilter struct {
	version, backendID int64
	state              string
}

const errTabletsWhere = "Where clause should looks like: Version = \"version\", or state = \"NORMAL|ROLLUP|CLONE|DECOMMISSION\", or BackendId = 10000 or compound predicate with operator AND"

// showTablets answers SHOW TABLETS FROM [db.]table [PARTITION[S] (p, ...)]
// [WHERE ...] [LIMIT [offset,] n] with Doris's TabletsProcDir columns, one
// row per replica ordered by TabletId, ReplicaId
// (fe/fe-core/.../nereids/trees/plans/commands/ShowTabletsFromTableCommand.java).
func showTablets(s *Session, c *cursor) (*Result, error) {
	if !c.accept("from") {
		return nil, errSyntax("Syntax error in SHOW TABLETS near %s", c.near())
	}
	db, table, ok := c.tableName()
	if !ok {
		return nil, errSyntax("Syntax error in SHOW TABLETS near %s", c.near())
	}
	parts, err := tabletPartitions(c)
	if err != nil {
		return nil, err
	}
	f, err := parseTabletFilter(c)
	if err != nil {
		return nil, err
	}
	offset, limit, err := parseTabletLimit(c)
	if err != nil {
		return nil, err
	}
	if !c.done() {
		// ORDER BY would silently come back in the default order.
		return nil, errSyntax("SHOW TABLETS ORDER BY is not supported by the simulator near %s", c.near())
	}
	if db, err = qualify(s, db); err != nil {
		return nil, err
	}
	replicas, err := s.eng.store.TabletReplicas(db, table, parts)
	if err != nil {
		return nil, err
	}
	sort.Slice(replicas, func(i, j int) bool { return replicas[i].TabletID < replicas[j].TabletID })
	fe := s.eng.cfg.Frontend()
	host := fe.Host
	if host == "" {
		host = "127.0.0.1"
	}
	// The simulator's BE HTTP server is the FE's (stream loads redirect there).
	be := net.JoinHostPort(host, strconv.Itoa(fe.HTTPPort))
	var rows [][]any
	for _, r := range replicas {
		if (f.version >= 0 && r.Version != f.version) || (f.backendID >= 0 && r.BackendID != f.backendID) ||
			(f.state != "" && f.state != "NORMAL") {
			continue
		}
		vals := r.ShowRow(be)
		row := make([]any, len(vals))
		for i, v := range vals {
			row[i] = v
		}
		rows = append(rows, row)
	}
	switch {
	case offset >= len(rows):
		rows = nil
	case limit >= 0:
		rows = rows[offset:min(offset+limit, len(rows))]
	}
	cols := make([]ResultColumn, len(storage.ShowTabletsColumns))
	for i, n := range storage.ShowTabletsColumns {
		cols[i] = ResultColumn{Name: n, Type: storage.Type{Kind: storage.Varchar, Length: 128}}
	}
	return staticResult(cols, rows), nil
}

// tabletPartitions parses PARTITION p, PARTITION (p, ...) or PARTITIONS (...).
func tabletPartitions(c *cursor) ([]string, error) {
	if !c.accept("partition") && !c.accept("partitions") {
		return nil, nil
	}
	if name, ok := c.ident(); ok {
		return []string{name}, nil
	}
	if !c.acceptPunct("(") {
		return nil, errSyntax("Syntax error in SHOW TABLETS PARTITION near %s", c.near())
	}
	var names []string
	for {
		name, ok := c.ident()
		if !ok {
			return nil, errSyntax("Syntax error in SHOW TABLETS PARTITION near %s", c.near())
		}
		names = append(names, name)
		if c.acceptPunct(")") {
			return names, nil
		}
		if !c.acceptPunct(",") {
			return nil, errSyntax("Syntax error in SHOW TABLETS PARTITION near %s", c.near())
		}
	}
}

func parseTabletFilter(c *cursor) (tabletFilter, error) {
	f := tabletFilter{version: -1, backendID: -1}
	if !c.accept("where") {
		return f, nil
	}
	for {
		name, ok := c.ident()
		if !ok || !c.acceptPunct("=") {
			return f, &storage.Error{Code: storage.CodeGeneric, Message: errTabletsWhere}
		}
		lit := c.peek(0)
		c.i++
		switch n, err := strconv.ParseInt(literalText(lit), 10, 64); {
		case strings.EqualFold(name, "version") && lit.Kind == storage.TokNumber && err == nil:
			f.version = n
		case strings.EqualFold(name, "backendid") && lit.Kind == storage.TokNumber && err == nil:
			f.backendID = n
		case strings.EqualFold(name, "state") && lit.Kind == storage.TokString && validReplicaState(lit.Str()):
			f.state = lit.Str()
		default:
			return f, &storage.Error{Code: storage.CodeGeneric, Message: errTabletsWhere}
		}
		if !c.accept("and") {
			return f, nil
		}
	}
}

func literalText(t storage.Token) string {
	if t.Kind == storage.TokString {
		return t.Str()
	}
	return t.Raw
}

// validReplicaState is Replica.ReplicaState.valueOf: exact, upper case.
func validReplicaState(s string) bool {
	switch s {
	case "NORMAL", "ROLLUP", "SCHEMA_CHANGE", "CLONE", "ALTER", "DECOMMISSION", "COMPACTION_TOO_MANY_VERSIONS":
		return true
	}
	return false
}

// parseTabletLimit parses LIMIT n, LIMIT offset, n and LIMIT n OFFSET m;
// limit -1 means none.
func parseTabletLimit(c *cursor) (offset, limit int, err error) {
	if !c.accept("limit") {
		return 0, -1, nil
	}
	num := func() (int, bool) {
		t := c.peek(0)
		n, err := strconv.Atoi(t.Raw)
		if t.Kind != storage.TokNumber || err != nil || n < 0 {
			return 0, false
		}
		c.i++
		return n, true
	}
	first, ok := num()
	if !ok {
		return 0, 0, errSyntax("Syntax error in SHOW TABLETS LIMIT near %s", c.near())
	}
	switch {
	case c.acceptPunct(","):
		if limit, ok = num(); !ok {
			return 0, 0, errSyntax("Syntax error in SHOW TABLETS LIMIT near %s", c.near())
		}
		return first, limit, nil
	case c.accept("offset"):
		if offset, ok = num(); !ok {
			return 0, 0, errSyntax("Syntax error in SHOW TABLETS LIMIT near %s", c.near())
		}
		return offset, first, nil
	}
	return 0, first, nil
}
