package doris

import (
	"fmt"
	"strings"

	"github.com/redpanda-data/benthos/v4/public/service"
)

// The config readers doris_binlog and doris_load share: errors name the
// field, enums say what they accept.

// FieldErr prefixes err with the field it is about.
func FieldErr(field string, err error) error { return fmt.Errorf("field %s: %w", field, err) }

// OptString returns an optional string field, trimmed; "" when unset.
func OptString(pc *service.ParsedConfig, field string) (string, error) {
	if !pc.Contains(field) {
		return "", nil
	}
	s, err := pc.FieldString(field)
	if err != nil {
		return "", FieldErr(field, err)
	}
	return strings.TrimSpace(s), nil
}

// ParseEnum reads a case-insensitive enum field, returning the option in
// the case given.
func ParseEnum(pc *service.ParsedConfig, field string, opts ...string) (string, error) {
	v, err := pc.FieldString(field)
	if err != nil {
		return "", FieldErr(field, err)
	}
	lv := strings.ToLower(strings.TrimSpace(v))
	for _, o := range opts {
		if lv == o {
			return o, nil
		}
	}
	return "", fmt.Errorf("field %s: %s must be one of %s; got %q", field, field, strings.Join(opts, ", "), v)
}
