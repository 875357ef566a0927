package doris

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Envelope is the FE's common response wrapper
// {"msg":"success","code":0,"data":<payload>,"count":0}.
type Envelope struct {
	Code    int
	Msg     string
	Data    json.RawMessage // nil when absent or null
	HasCode bool            // false for legacy endpoints that answer unwrapped
}

// APIError is an FE answer with code != 0.
type APIError struct {
	Code int
	Msg  string
}

func (e *APIError) Error() string {
	return fmt.Sprintf("code %d: %s", e.Code, e.Msg)
}

// ParseEnvelope decodes the FE response wrapper. It fails only when body is
// not a JSON object or the wrapper fields have the wrong types; a code != 0 is
// reported through the returned Envelope, so callers can word the error.
func ParseEnvelope(body []byte) (Envelope, error) {
	var raw struct {
		Code json.RawMessage `json:"code"`
		Msg  json.RawMessage `json:"msg"`
		Data json.RawMessage `json:"data"`
	}
	if err := decodeJSON(body, &raw); err != nil {
		return Envelope{}, err
	}
	var env Envelope
	if len(raw.Code) > 0 && !isJSONNull(raw.Code) {
		code, err := jsonInt(raw.Code)
		if err != nil {
			return Envelope{}, fmt.Errorf("envelope code: %w", err)
		}
		env.Code, env.HasCode = int(code), true
	}
	if len(raw.Msg) > 0 && !isJSONNull(raw.Msg) {
		if err := json.Unmarshal(raw.Msg, &env.Msg); err != nil {
			// Some FEs put an object in msg; keep its text rather than fail.
			env.Msg = string(raw.Msg)
		}
	}
	if len(raw.Data) > 0 && !isJSONNull(raw.Data) {
		env.Data = raw.Data
	}
	return env, nil
}

// Err returns the envelope's failure as *APIError, or nil when code is 0.
func (e Envelope) Err() error {
	if e.Code == 0 {
		return nil
	}
	return &APIError{Code: e.Code, Msg: e.Msg}
}

// decodeJSON decodes exactly one JSON object, keeping numbers exact.
func decodeJSON(body []byte, v any) error {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return errors.New("response is not a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data after JSON object")
	}
	return nil
}

func isJSONNull(raw json.RawMessage) bool {
	return string(bytes.TrimSpace(raw)) == "null"
}

// jsonInt reads an integer given as a JSON number or a numeric string.
func jsonInt(raw json.RawMessage) (int64, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return 0, err
	}
	return anyInt(v)
}

func anyInt(v any) (int64, error) {
	switch x := v.(type) {
	case json.Number:
		return parseInt(string(x))
	case string:
		return parseInt(x)
	default:
		return 0, fmt.Errorf("not an integer: %v", v)
	}
}
