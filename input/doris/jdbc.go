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

const (
	jdbcPrefix       = "jdbc:mysql://"
	defaultMySQLPort = 3306
)

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

// ParseJDBCURL parses a single-host MySQL JDBC URL strictly. The port
// defaults to 3306 as in MySQL Connector/J; several hosts, credentials in the
// URL and malformed parameters are refused.
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
	hostPort := a
	if !strings.Contains(strings.TrimPrefix(strings.TrimSuffix(a, "]"), "["), ":") || strings.HasSuffix(a, "]") {
		hostPort = net.JoinHostPort(strings.Trim(a, "[]"), strconv.Itoa(defaultMySQLPort))
	}
	node, err := parseHostPort(hostPort)
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
