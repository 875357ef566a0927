package doris

import (
	"encoding/json"
	"errors"
	"fmt"
)

// malformedError is an answer that could not be decoded; another FE may
// answer properly, so it stays retryable.
type malformedError struct {
	what string
	err  error
}

func (e *malformedError) Error() string {
	return fmt.Sprintf("invalid Doris %s response: %v", e.what, e.err)
}

func (e *malformedError) Unwrap() error { return e.err }

// StatusError is a payload whose "status" is not 200.
type StatusError struct {
	Status    int
	Exception string
}

func (e *StatusError) Error() string {
	if e.Exception != "" {
		return fmt.Sprintf("Doris FE's response is not OK, status is %d: %s", e.Status, e.Exception)
	}
	return fmt.Sprintf("Doris FE's response is not OK, status is %d", e.Status)
}

// envelopePayload returns the data of an enveloped answer, or the body itself
// when the FE answered without an envelope.
func envelopePayload(body []byte, what string) (json.RawMessage, error) {
	env, err := ParseEnvelope(body)
	if err != nil {
		return nil, &malformedError{what: what, err: err}
	}
	if env.Code != 0 {
		return nil, fmt.Errorf("Doris %s request failed: %w", what, env.Err())
	}
	if !env.HasCode && env.Data == nil {
		return body, nil
	}
	if env.Data == nil {
		return nil, &malformedError{what: what, err: errors.New("missing data")}
	}
	return env.Data, nil
}

// checkStatus applies the reference rule: a payload status other than 200 is
// a failure (a missing status counts as 0).
func checkStatus(raw json.RawMessage, exception string) error {
	status := int64(0)
	if len(raw) > 0 && !isJSONNull(raw) {
		v, err := jsonInt(raw)
		if err != nil {
			return &malformedError{what: "payload", err: fmt.Errorf("status: %w", err)}
		}
		status = v
	}
	if status != 200 {
		return &StatusError{Status: int(max(min(status, 1<<31-1), -1<<31)), Exception: exception}
	}
	return nil
}

// classifyPayloadError keeps undecodable answers retryable and makes
// everything else (FE-reported failures) permanent.
func classifyPayloadError(re *RequestError) error {
	var m *malformedError
	if errors.As(re.Err, &m) {
		return re
	}
	return Permanent(re)
}
