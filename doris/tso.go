package doris

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

const (
	tsoLogicalBits = 18
	tsoLogicalMask = 1<<tsoLogicalBits - 1
	tsoPath        = "/api/tso"
)

// TSOInfo is the FE's current TSO.
type TSOInfo struct {
	TSO        int64 // (PhysicalMs << 18) | logical
	PhysicalMs int64 // epoch milliseconds
}

// PhysicalMs returns the physical part (epoch ms) of a TSO.
func PhysicalMs(tso int64) int64 { return tso >> tsoLogicalBits }

// Compose builds a TSO from its physical time and logical counter.
func Compose(physMs, logical int64) int64 {
	return physMs<<tsoLogicalBits | logical&tsoLogicalMask
}

// CurrentTSO reads GET /api/tso; it does not advance the TSO.
func CurrentTSO(ctx context.Context, c *Client) (TSOInfo, error) {
	var out TSOInfo
	err := c.withRetry(ctx, "current TSO", func(ctx context.Context, fe string) error {
		info, err := tsoOn(ctx, c, fe)
		out = info
		return err
	})
	return out, err
}

// tsoOn asks one FE. A code != 0 (FE not ready, not master) stays
// retryable: another FE or a later attempt may answer.
func tsoOn(ctx context.Context, c *Client, fe string) (TSOInfo, error) {
	body, err := c.roundTrip(ctx, fe, http.MethodGet, tsoPath, nil)
	if err != nil {
		return TSOInfo{}, err
	}
	info, err := ParseTSOResponse(body)
	if err != nil {
		return TSOInfo{}, &RequestError{FE: fe, Method: http.MethodGet, Endpoint: tsoPath, Status: http.StatusOK, Err: err}
	}
	return info, nil
}

// ParseTSOResponse parses the /api/tso body with the reference connector's
// checks and error texts.
func ParseTSOResponse(body []byte) (TSOInfo, error) {
	env, err := ParseEnvelope(body)
	if err != nil {
		return TSOInfo{}, fmt.Errorf("Invalid Doris TSO response: %w", err)
	}
	if env.Code != 0 {
		return TSOInfo{}, fmt.Errorf("Failed to get current Doris TSO: %s", env.Msg)
	}
	if env.Data == nil {
		return TSOInfo{}, errors.New("Missing current_tso_physical_time in TSO response")
	}
	var data map[string]json.RawMessage
	if err := decodeJSON(env.Data, &data); err != nil {
		return TSOInfo{}, fmt.Errorf("Invalid Doris TSO response: %w", err)
	}
	rawPhys, ok := data["current_tso_physical_time"]
	if !ok || isJSONNull(rawPhys) {
		return TSOInfo{}, errors.New("Missing current_tso_physical_time in TSO response")
	}
	phys, err := jsonInt(rawPhys)
	if err != nil || phys <= 0 || phys > PhysicalMs(1<<63-1) {
		return TSOInfo{}, fmt.Errorf("Invalid current_tso_physical_time: %s", Snippet(rawPhys))
	}
	return TSOInfo{TSO: tsoValue(data, phys), PhysicalMs: phys}, nil
}

// tsoValue prefers the FE's full TSO when it agrees with the physical time,
// else rebuilds it from the physical time and the logical counter.
func tsoValue(data map[string]json.RawMessage, phys int64) int64 {
	if raw, ok := data["current_tso"]; ok {
		if v, err := jsonInt(raw); err == nil && v > 0 && PhysicalMs(v) == phys {
			return v
		}
	}
	var logical int64
	if raw, ok := data["current_tso_logical_counter"]; ok {
		if v, err := jsonInt(raw); err == nil && v >= 0 {
			logical = v
		}
	}
	return Compose(phys, logical)
}
