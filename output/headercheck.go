package output

import "fmt"

// The config values that travel as HTTP headers are checked when the output
// is built: net/http refuses a bad one only when the load is sent, and that
// error looks like a failed connection, so the batch would be retried
// forever instead of the config failing at start.

// validHeaderName reports whether s is an RFC 9110 token.
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case c < 0x80 && contains("!#$%&'*+-.^_`|~", c):
		default:
			return false
		}
	}
	return true
}

// badHeaderValue returns a description of the first byte HTTP cannot carry
// in a header value (CR, LF and the other control characters but tab), or "".
// The value itself is never repeated: headers may hold credentials.
func badHeaderValue(s string) string {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\r' || c == '\n':
			return fmt.Sprintf("a line break at byte %d", i)
		case (c < 0x20 && c != '\t') || c == 0x7f:
			return fmt.Sprintf("control character 0x%02x at byte %d", c, i)
		}
	}
	return ""
}

func contains(set string, c byte) bool {
	for i := 0; i < len(set); i++ {
		if set[i] == c {
			return true
		}
	}
	return false
}

// checkHeaders checks the headers field and the fields sent as headers.
func checkHeaders(c *config) error {
	for k, v := range c.headers {
		if !validHeaderName(k) {
			return fmt.Errorf("field %s: %q is not a valid HTTP header name (letters, digits and !#$%%&'*+-.^_`|~ only)", fieldHeaders, k)
		}
		if bad := badHeaderValue(v); bad != "" {
			return fmt.Errorf("field %s: headers.%s holds %s, which an HTTP header cannot carry", fieldHeaders, k, bad)
		}
	}
	for field, v := range map[string]string{fieldColumns: c.columns, fieldSequenceColumn: c.seqCol} {
		if bad := badHeaderValue(v); bad != "" {
			return fmt.Errorf("field %s: the value holds %s, which the Stream Load header it is sent in cannot carry", field, bad)
		}
	}
	return nil
}
