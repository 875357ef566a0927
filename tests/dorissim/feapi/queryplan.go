package feapi

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

type planPartition struct {
	Routings   []string `json:"routings"`
	Version    int64    `json:"version"`
	SchemaHash int64    `json:"schemaHash"`
}

type planData struct {
	Partitions       map[string]planPartition `json:"partitions"`
	OpaquedQueryPlan string                   `json:"opaqued_query_plan"`
	Status           int                      `json:"status"`
}

type planFailure struct {
	Status    int    `json:"status"`
	Exception string `json:"exception"`
}

// fromTable captures the table reference after FROM: `db`.`tbl`, db.tbl, ...
var fromTable = regexp.MustCompile("(?is)^\\s*select\\s+.+?\\s+from\\s+((?:`(?:[^`]|``)+`|[\\w$]+)(?:\\s*\\.\\s*(?:`(?:[^`]|``)+`|[\\w$]+))*)")

var (
	joinWord    = regexp.MustCompile(`(?i)\bjoin\b`)
	errOneTable = errors.New("Select statement must have only one table")
)

// queryPlan answers POST/GET /api/{db}/{table}/_query_plan (doris-facts §1.5),
// listing the tablets of the partitions the WHERE clause can match.
func queryPlan(a *api, w http.ResponseWriter, r *http.Request, user string) {
	db, table := r.PathValue("db"), r.PathValue("table")
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		planFail(w, http.StatusBadRequest, fmt.Sprintf("read query plan body for %s.%s: %v", db, table, err))
		return
	}
	var req map[string]any
	sql, _ := func() (string, bool) {
		if json.Unmarshal(body, &req) != nil {
			return "", false
		}
		s, ok := req["sql"].(string)
		return s, ok
	}()
	if sql == "" {
		planFail(w, http.StatusBadRequest, "POST body must contains [sql] root object")
		return
	}
	parts, err := sqlTable(sql)
	if err != nil {
		planFail(w, http.StatusBadRequest, err.Error())
		return
	}
	if len(parts) != 2 || parts[0] != db || parts[1] != table {
		planFail(w, http.StatusBadRequest, fmt.Sprintf(
			"requested database and table must consistent with sql: request [%s.%s]and sql [%s]", db, table, strings.Join(parts, ".")))
		return
	}
	info, err := a.cfg.Backend.Table(db, table)
	if err != nil {
		planFail(w, http.StatusNotFound, err.Error())
		return
	}
	if err := validatePlanSQL(a, r, user, sql); err != nil {
		planFail(w, http.StatusBadRequest, err.Error())
		return
	}
	tablets, err := a.cfg.Backend.PlanTablets(db, table, sql)
	if err != nil {
		planFail(w, http.StatusNotFound, err.Error())
		return
	}
	ok(w, plan(a, db, table, sql, tablets, storage.SchemaHash(db, table, info.Def)))
}

func planFail(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, http.StatusOK, envelope{Msg: msg, Code: 1, Data: planFailure{Status: status, Exception: msg}})
}

// sqlTable extracts the single table reference of a plan statement.
func sqlTable(sql string) ([]string, error) {
	m := fromTable.FindStringSubmatch(sql)
	if m == nil {
		return nil, errOneTable
	}
	rest := sql[len(m[0]):]
	if strings.HasPrefix(strings.TrimSpace(rest), ",") || joinWord.MatchString(rest) {
		return nil, errOneTable
	}
	return splitQualified(m[1]), nil
}

func splitQualified(s string) []string {
	var parts []string
	var cur strings.Builder
	inQuote := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '`' && inQuote && i+1 < len(s) && s[i+1] == '`':
			cur.WriteByte('`')
			i++
		case c == '`':
			inQuote = !inQuote
		case c == '.' && !inQuote:
			parts = append(parts, strings.TrimSpace(cur.String()))
			cur.Reset()
		case (c == ' ' || c == '\t' || c == '\n') && !inQuote:
		default:
			cur.WriteByte(c)
		}
	}
	return append(parts, cur.String())
}

// validatePlanSQL runs the statement without fetching rows so that unknown
// columns and bad filters fail the plan, as FE planning does.
func validatePlanSQL(a *api, r *http.Request, user, sql string) error {
	sess := a.cfg.Backend.NewSession(user)
	defer sess.Close()
	res, err := sess.Query(r.Context(), "SELECT * FROM ("+sql+") AS __query_plan_check LIMIT 0")
	if err != nil {
		return err
	}
	return res.Close()
}

func plan(a *api, db, table, sql string, tablets []int64, hash int64) planData {
	d := planData{Partitions: map[string]planPartition{}, Status: http.StatusOK}
	for _, id := range tablets {
		d.Partitions[strconv.FormatInt(id, 10)] = planPartition{
			Routings: []string{a.cfg.BERouting}, Version: 2, SchemaHash: hash,
		}
	}
	// Only the legacy Thrift reader uses the plan; it is opaque to Flight readers.
	plan, _ := json.Marshal(map[string]any{"db": db, "table": table, "sql": sql, "tablets": tablets})
	d.OpaquedQueryPlan = base64.StdEncoding.EncodeToString(plan)
	return d
}
