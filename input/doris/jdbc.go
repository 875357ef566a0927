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
	if len(s) < len(jdbcPrefix) || !strings.EqualFold(s[:len(jdbcPrefix)], jdbcPrefix) {
		return nil, fmt.Errorf("jdbc_url must start with %s, got %q", jdbcPrefix, redactJDBC(s))
	}
	rest := s[len(jdbcPrefix):]
	authority, pathQuery := rest, ""
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		authority, pathQuery = rest[:i], rest[i:]
	}
	j := &JDBCURL{Params: map[string]string{}}
	if err := j.parseAuthority(authority); err != nil {
		return nil, fmt.Errorf("jdbc_url %q: %w", redactJDBC(s), err)
	}
	if err := j.parsePathQuery(pathQuery); err != nil {
		return nil, fmt.Errorf("jdbc_url %q: %w", redactJDBC(s), err)
	}
	return j, nil
}

func (j *JDBCURL) parseAuthority(a string) error {
	switch {
	case a == "":
		return errors.New("missing host")
	case strings.Contains(a, ","):
		return errors.New("only one host is supported")
	case strings.Contains(a, "@"):
		return errors.New("credentials in the URL are not supported; use user and password")
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
			return fmt.Errorf("invalid parameter %q", pair)
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
		return 0, fmt.Errorf("jdbc_url parameter %s must be milliseconds, got %q", name, v)
	}
	if ms == 0 {
		return def, nil
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// redactJDBC hides password parameters before a URL is put into an error.
func redactJDBC(s string) string {
	i := strings.IndexByte(s, '?')
	if i < 0 {
		return s
	}
	pairs := strings.Split(s[i+1:], "&")
	for n, p := range pairs {
		k, _, _ := strings.Cut(p, "=")
		if strings.Contains(strings.ToLower(k), "password") {
			pairs[n] = k + "=xxxxx"
		}
	}
	return s[:i+1] + strings.Join(pairs, "&")
}
