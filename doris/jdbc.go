package doris

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// jdbcPrefix starts every accepted URL; its case does not matter, as URL
// schemes are case-insensitive.
const jdbcPrefix = "jdbc:mysql://"

// JDBCURL is a parsed `jdbc:mysql://host[:port][/db][?k=v&...]`.
type JDBCURL struct {
	Host     string
	Port     int
	Database string            // "" when absent
	Params   map[string]string // query parameters, decoded
}

// Addr returns host:port for dialing.
func (j *JDBCURL) Addr() string {
	return net.JoinHostPort(j.Host, strconv.Itoa(j.Port))
}

// ParseJDBCURL parses a single-host MySQL JDBC URL strictly: the one rule
// for jdbc_url, which lint mirrors. The prefix is case-insensitive and the
// port required; several hosts, credentials in the URL and malformed
// parameters are refused.
func ParseJDBCURL(s string) (*JDBCURL, error) {
	if !hasJDBCPrefix(s) {
		// Nothing of the value is repeated: without the prefix there is no
		// telling which part of it is a host and which a password.
		return nil, fmt.Errorf("jdbc_url must start with %s", jdbcPrefix)
	}
	rest := s[len(jdbcPrefix):]
	// A password may hold '/' or '?', so credentials are looked for in the
	// whole value, not only in the authority; an '@' in a parameter value
	// is written %40.
	if strings.Contains(rest, "@") {
		return nil, fmt.Errorf("jdbc_url %q: credentials in the URL are not supported; use the username and password fields", RedactJDBC(s))
	}
	authority, pathQuery := rest, ""
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		authority, pathQuery = rest[:i], rest[i:]
	}
	j := &JDBCURL{Params: map[string]string{}}
	if err := j.parseAuthority(authority); err != nil {
		return nil, fmt.Errorf("jdbc_url %q: %w", RedactJDBC(s), err)
	}
	if err := j.parsePathQuery(pathQuery); err != nil {
		return nil, fmt.Errorf("jdbc_url %q: %w", RedactJDBC(s), err)
	}
	return j, nil
}

func hasJDBCPrefix(s string) bool {
	return len(s) >= len(jdbcPrefix) && strings.EqualFold(s[:len(jdbcPrefix)], jdbcPrefix)
}

func (j *JDBCURL) parseAuthority(a string) error {
	switch {
	case a == "":
		return errors.New("missing host")
	case strings.Contains(a, ","):
		return errors.New("only one host is supported")
	}
	if !strings.Contains(strings.TrimPrefix(strings.TrimSuffix(a, "]"), "["), ":") || strings.HasSuffix(a, "]") {
		// MySQL's 3306 is not Doris's query port (9030 by default), so a
		// URL without a port is refused rather than guessed.
		return errors.New("missing port: give the FE query port, as in jdbc:mysql://host:9030")
	}
	node, err := parseHostPort(a)
	if err != nil {
		return err
	}
	host, port, _ := net.SplitHostPort(node)
	j.Host = host
	j.Port, _ = strconv.Atoi(port)
	return nil
}

func (j *JDBCURL) parsePathQuery(pq string) error {
	path, query, hasQuery := strings.Cut(pq, "?")
	if path != "" {
		db, err := url.PathUnescape(strings.TrimPrefix(path, "/"))
		if err != nil || strings.Contains(db, "/") {
			return fmt.Errorf("invalid database %q", path)
		}
		j.Database = db
	}
	if !hasQuery || query == "" {
		return nil
	}
	for _, pair := range strings.Split(query, "&") {
		k, v, ok := strings.Cut(pair, "=")
		key, kerr := url.QueryUnescape(k)
		val, verr := url.QueryUnescape(v)
		if !ok || key == "" || kerr != nil || verr != nil {
			return fmt.Errorf("invalid parameter %q", redactParam(pair))
		}
		j.Params[key] = val
	}
	return nil
}

// durationParam reads a Connector/J millisecond parameter such as
// connectTimeout; 0 or absent returns def.
func (j *JDBCURL) durationParam(name string, def time.Duration) (time.Duration, error) {
	v, ok := j.Params[name]
	if !ok {
		return def, nil
	}
	ms, err := strconv.ParseInt(v, 10, 64)
	if err != nil || ms < 0 || ms > int64(24*time.Hour/time.Millisecond) {
		// The value is not repeated: every jdbc_url value is kept out of
		// messages alike.
		return 0, fmt.Errorf("jdbc_url parameter %s must be milliseconds from 0 to %d", name, int64(24*time.Hour/time.Millisecond))
	}
	if ms == 0 {
		return def, nil
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// redactedValue stands in for every hidden part of a jdbc_url.
const redactedValue = "xxxxx"

// RedactJDBC renders a jdbc_url for errors and logs: the prefix, host, port
// and database stay, user info becomes xxxxx, and so does every parameter
// value, since any of them (password, sslKeyPassword, a token in a custom
// parameter) may be a secret. A value that is not a jdbc:mysql:// URL is
// hidden whole.
func RedactJDBC(s string) string {
	if !hasJDBCPrefix(s) {
		return redactedValue
	}
	rest := s[len(jdbcPrefix):]
	// Everything up to the last '@' may be user info, even a '?' or '/'
	// inside a password.
	if at := strings.LastIndexByte(rest, '@'); at >= 0 {
		rest = redactedValue + rest[at:]
	}
	beforeQuery, query, hasQuery := strings.Cut(rest, "?")
	out := s[:len(jdbcPrefix)] + beforeQuery
	if !hasQuery {
		return out
	}
	pairs := strings.Split(query, "&")
	for n, p := range pairs {
		pairs[n] = redactParam(p)
	}
	return out + "?" + strings.Join(pairs, "&")
}

// redactParam keeps a parameter's name when it is a plain name and hides its
// value; anything else (a pair without '=', an odd name that may be a pasted
// secret) is hidden whole.
func redactParam(pair string) string {
	k, _, ok := strings.Cut(pair, "=")
	if !ok || !plainParamName(k) {
		return redactedValue
	}
	return k + "=" + redactedValue
}

func plainParamName(k string) bool {
	if k == "" || len(k) > 64 {
		return false
	}
	for _, r := range k {
		if !(r == '_' || r == '.' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}
