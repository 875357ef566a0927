package doris

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

const statementPath = "/api/query/default_cluster/information_schema"

// StatementColumn is one entry of a statement result's meta.
type StatementColumn struct {
	Name string
	Type string
}

// StatementResult is the payload of a statement run through the FE's HTTP
// query API. Cells are nil, string, json.Number, bool, or nested JSON values
// ([]any, map[string]any) as the FE wrote them.
type StatementResult struct {
	Type    string // "result_set" for queries, "exec_status" otherwise
	Columns []StatementColumn
	Rows    [][]any
}

// ColumnIndex returns the index of the column named name, compared
// case-insensitively, or -1.
func (r *StatementResult) ColumnIndex(name string) int {
	for i, col := range r.Columns {
		if strings.EqualFold(col.Name, name) {
			return i
		}
	}
	return -1
}

// CellText returns the cell as text when it is a string or a number.
func (r *StatementResult) CellText(row, col int) (string, bool) {
	if row < 0 || row >= len(r.Rows) || col < 0 || col >= len(r.Rows[row]) {
		return "", false
	}
	switch v := r.Rows[row][col].(type) {
	case string:
		return v, true
	case json.Number:
		return v.String(), true
	default:
		return "", false
	}
}

// Statement runs stmt through POST /api/query/default_cluster/information_schema.
func Statement(ctx context.Context, c *Client, stmt string) (*StatementResult, error) {
	var out *StatementResult
	err := c.withRetry(ctx, "statement", func(ctx context.Context, fe string) error {
		res, err := statementOn(ctx, c, fe, stmt)
		out = res
		return err
	})
	return out, err
}

func statementOn(ctx context.Context, c *Client, fe, stmt string) (*StatementResult, error) {
	reqBody, err := json.Marshal(map[string]string{"stmt": stmt})
	if err != nil {
		return nil, Permanent(fmt.Errorf("encode statement: %w", err))
	}
	body, err := c.roundTrip(ctx, fe, http.MethodPost, statementPath, reqBody)
	if err != nil {
		return nil, err
	}
	res, err := ParseStatementResponse(body)
	if err != nil {
		re := &RequestError{FE: fe, Method: http.MethodPost, Endpoint: statementPath, Status: http.StatusOK, Err: err}
		if _, isSQL := err.(*statementFailure); isSQL {
			return nil, Permanent(re)
		}
		return nil, re
	}
	return res, nil
}

// statementFailure is a Doris-reported statement error (code != 0): it would
// fail the same way on every FE.
type statementFailure struct{ api *APIError }

func (e *statementFailure) Error() string {
	return "Failed to execute Doris statement: " + e.api.Msg
}

func (e *statementFailure) Unwrap() error { return e.api }

// ParseStatementResponse parses the body of the FE's HTTP query API.
func ParseStatementResponse(body []byte) (*StatementResult, error) {
	env, err := ParseEnvelope(body)
	if err != nil {
		return nil, fmt.Errorf("Invalid Doris statement response: %w", err)
	}
	if env.Code != 0 {
		return nil, &statementFailure{api: &APIError{Code: env.Code, Msg: env.Msg}}
	}
	if env.Data == nil {
		return nil, fmt.Errorf("Invalid Doris statement response: missing data")
	}
	var data struct {
		Type string `json:"type"`
		Meta []struct {
			Name string `json:"name"`
			Type string `json:"type"`
		} `json:"meta"`
		Data [][]any `json:"data"`
	}
	if err := decodeJSON(env.Data, &data); err != nil {
		return nil, fmt.Errorf("Invalid Doris statement response: %w", err)
	}
	res := &StatementResult{Type: data.Type, Rows: data.Data}
	for _, m := range data.Meta {
		res.Columns = append(res.Columns, StatementColumn{Name: m.Name, Type: m.Type})
	}
	return res, nil
}
