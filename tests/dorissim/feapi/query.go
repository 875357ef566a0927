package feapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

const (
	defaultQueryLimit = 1000
	maxQueryLimit     = 10000
)

type queryRequest struct {
	Stmt   string `json:"stmt"`
	Limit  int    `json:"limit"`
	IsSync *bool  `json:"is_sync"`
}

type metaColumn struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

type resultSet struct {
	Type string       `json:"type"`
	Meta []metaColumn `json:"meta"`
	Data [][]any      `json:"data"`
	Time int64        `json:"time"`
}

type execStatus struct {
	Type   string         `json:"type"`
	Status map[string]any `json:"status"`
	Time   int64          `json:"time"`
}

// query runs one statement (POST /api/query/default_cluster/information_schema).
func query(a *api, w http.ResponseWriter, r *http.Request, user string) {
	start := time.Now()
	var req queryRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 16<<20)).Decode(&req); err != nil {
		fail(w, fmt.Errorf("malformed statement request body: %w", err))
		return
	}
	if req.Stmt == "" {
		fail(w, errors.New("stmt is required"))
		return
	}
	limit := req.Limit
	if limit <= 0 {
		limit = defaultQueryLimit
	}
	limit = min(limit, maxQueryLimit)
	sess := a.cfg.Backend.NewSession(user)
	defer sess.Close()
	res, err := sess.Query(r.Context(), req.Stmt)
	if err != nil {
		fail(w, err)
		return
	}
	defer res.Close()
	cols := res.Columns()
	if len(cols) == 0 {
		ok(w, execStatus{Type: "exec_status", Status: map[string]any{}, Time: time.Since(start).Milliseconds()})
		return
	}
	// SHOW statements are answered by the FE as text columns typed CHAR.
	show := isShow(req.Stmt)
	rs := resultSet{Type: "result_set", Meta: make([]metaColumn, len(cols)), Data: [][]any{}}
	for i, c := range cols {
		rs.Meta[i] = metaColumn{Name: c.Name, Type: metaType(c.Type)}
		if show {
			rs.Meta[i].Type = "CHAR"
		}
	}
	for len(rs.Data) < limit {
		row, err := res.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			fail(w, err)
			return
		}
		cells, err := rowCells(cols, row, show)
		if err != nil {
			fail(w, err)
			return
		}
		rs.Data = append(rs.Data, cells)
	}
	rs.Time = time.Since(start).Milliseconds()
	ok(w, rs)
}

// isShow reports whether stmt is a SHOW once its leading comments are
// skipped as the SQL engine skips them (storage's lexer, so `--` comments
// count as in Doris).
func isShow(stmt string) bool {
	rest, err := storage.StripLeadingComments(stmt)
	return err == nil && len(rest) >= 4 && strings.EqualFold(rest[:4], "show")
}
