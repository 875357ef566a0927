package doris

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
)

// QueryPlan is the FE's snapshot plan for one table.
type QueryPlan struct {
	Tablets          []PlanTablet // ascending by ID
	OpaquedQueryPlan string
}

// PlanTablet is one entry of the plan's "partitions" map, whose keys are
// tablet ids despite the name.
type PlanTablet struct {
	ID         int64
	Routings   []string // host:bePort
	Version    int64
	SchemaHash int64
}

// TabletIDs returns the plan's tablet ids in ascending order.
func (p *QueryPlan) TabletIDs() []int64 {
	ids := make([]int64, len(p.Tablets))
	for i, t := range p.Tablets {
		ids[i] = t.ID
	}
	return ids
}

// PlanQuery asks the FE to plan sql (a `select ... from db.table [where ...]`).
func PlanQuery(ctx context.Context, c *Client, db, table, sql string) (*QueryPlan, error) {
	path := "/api/" + url.PathEscape(db) + "/" + url.PathEscape(table) + "/_query_plan"
	reqBody, err := json.Marshal(map[string]string{"sql": sql})
	if err != nil {
		return nil, fmt.Errorf("query plan for %s.%s: encode request: %w", db, table, err)
	}
	var out *QueryPlan
	err = c.withRetry(ctx, "query plan for "+db+"."+table, func(ctx context.Context, fe string) error {
		body, err := c.roundTrip(ctx, fe, http.MethodPost, path, reqBody)
		if err != nil {
			return err
		}
		plan, perr := ParseQueryPlanResponse(body)
		if perr != nil {
			return classifyPayloadError(&RequestError{FE: fe, Method: http.MethodPost, Endpoint: path, Status: http.StatusOK, Err: perr})
		}
		out = plan
		return nil
	})
	return out, err
}

// ParseQueryPlanResponse parses a _query_plan body. A failure payload
// {"status":<n>,"exception":"<msg>"} is reported with the exception text.
func ParseQueryPlanResponse(body []byte) (*QueryPlan, error) {
	payload, err := envelopePayload(body, "query plan")
	if err != nil {
		return nil, err
	}
	var data struct {
		Status     json.RawMessage `json:"status"`
		Exception  string          `json:"exception"`
		Plan       string          `json:"opaqued_query_plan"`
		Partitions map[string]struct {
			Routings   []string        `json:"routings"`
			Version    json.RawMessage `json:"version"`
			SchemaHash json.RawMessage `json:"schemaHash"`
		} `json:"partitions"`
	}
	if err := decodeJSON(payload, &data); err != nil {
		return nil, &malformedError{what: "query plan", err: err}
	}
	if err := checkStatus(data.Status, data.Exception); err != nil {
		return nil, err
	}
	plan := &QueryPlan{OpaquedQueryPlan: data.Plan}
	for key, part := range data.Partitions {
		id, err := parseInt(key)
		if err != nil {
			return nil, fmt.Errorf("query plan tablet id %q: %w", key, err)
		}
		t := PlanTablet{ID: id, Routings: part.Routings}
		t.Version, _ = optionalInt64(part.Version)
		t.SchemaHash, _ = optionalInt64(part.SchemaHash)
		plan.Tablets = append(plan.Tablets, t)
	}
	slices.SortFunc(plan.Tablets, func(a, b PlanTablet) int { return cmp.Compare(a.ID, b.ID) })
	for i := 1; i < len(plan.Tablets); i++ {
		if plan.Tablets[i].ID == plan.Tablets[i-1].ID {
			return nil, fmt.Errorf("query plan lists tablet %d twice", plan.Tablets[i].ID)
		}
	}
	return plan, nil
}

func optionalInt64(raw json.RawMessage) (int64, error) {
	if len(raw) == 0 || isJSONNull(raw) {
		return 0, nil
	}
	return jsonInt(raw)
}
