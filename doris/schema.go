package doris

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
)

// TableSchema is the payload of GET /api/{db}/{table}/_schema.
type TableSchema struct {
	KeysType string // DUP_KEYS, UNIQUE_KEYS or AGG_KEYS
	Columns  []SchemaColumn
}

// SchemaColumn is one column of a _schema answer. Hidden columns are not
// listed by the FE.
type SchemaColumn struct {
	Name            string
	Type            string // e.g. VARCHAR, DECIMAL64, DATETIMEV2
	Comment         string
	AggregationType string
	Precision       int // decimals only
	Scale           int // decimals only
}

// Schema reads a table's schema through the FE REST API.
func Schema(ctx context.Context, c *Client, db, table string) (*TableSchema, error) {
	path := "/api/" + url.PathEscape(db) + "/" + url.PathEscape(table) + "/_schema"
	var out *TableSchema
	err := c.withRetry(ctx, "schema of "+db+"."+table, func(ctx context.Context, fe string) error {
		body, err := c.roundTrip(ctx, fe, http.MethodGet, path, nil)
		if err != nil {
			return err
		}
		s, perr := ParseSchemaResponse(body)
		if perr != nil {
			return classifyPayloadError(&RequestError{FE: fe, Method: http.MethodGet, Endpoint: path, Status: http.StatusOK, Err: perr})
		}
		out = s
		return nil
	})
	return out, err
}

// ParseSchemaResponse parses a _schema body, enveloped or (older FEs) bare.
func ParseSchemaResponse(body []byte) (*TableSchema, error) {
	payload, err := envelopePayload(body, "schema")
	if err != nil {
		return nil, err
	}
	var data struct {
		KeysType   string          `json:"keysType"`
		Status     json.RawMessage `json:"status"`
		Exception  string          `json:"exception"`
		Properties []struct {
			Name            string          `json:"name"`
			Type            string          `json:"type"`
			Comment         string          `json:"comment"`
			AggregationType string          `json:"aggregation_type"`
			Precision       json.RawMessage `json:"precision"`
			Scale           json.RawMessage `json:"scale"`
		} `json:"properties"`
	}
	if err := decodeJSON(payload, &data); err != nil {
		return nil, &malformedError{what: "schema", err: err}
	}
	if err := checkStatus(data.Status, data.Exception); err != nil {
		return nil, err
	}
	s := &TableSchema{KeysType: data.KeysType}
	for _, p := range data.Properties {
		col := SchemaColumn{Name: p.Name, Type: p.Type, Comment: p.Comment, AggregationType: p.AggregationType}
		if col.Precision, err = optionalInt(p.Precision); err != nil {
			return nil, fmt.Errorf("schema column %q precision: %w", p.Name, err)
		}
		if col.Scale, err = optionalInt(p.Scale); err != nil {
			return nil, fmt.Errorf("schema column %q scale: %w", p.Name, err)
		}
		s.Columns = append(s.Columns, col)
	}
	return s, nil
}

func optionalInt(raw json.RawMessage) (int, error) {
	if len(raw) == 0 || isJSONNull(raw) {
		return 0, nil
	}
	v, err := jsonInt(raw)
	if err != nil {
		return 0, err
	}
	if v < 0 || v > 1<<20 {
		return 0, fmt.Errorf("out of range: %d", v)
	}
	return int(v), nil
}
