package doris

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
)

// ParseTableIdentifier splits a strict "db.table". Each part is either a bare
// name without dots or backticks, or a backtick-quoted name with inner
// backticks doubled (`my.db`.`t`).
func ParseTableIdentifier(s string) (db, table string, err error) {
	// The error is built only on failure: every checkpoint save checks
	// each table's key with this.
	bad := func() error { return fmt.Errorf("must be db.table (backtick-quote parts with dots), got %q", s) }
	db, rest, ok := identPart(s)
	if !ok || !strings.HasPrefix(rest, ".") {
		return "", "", bad()
	}
	table, rest, ok = identPart(rest[1:])
	if !ok || rest != "" {
		return "", "", bad()
	}
	return db, table, nil
}

// identPart reads one non-empty identifier from the front of s.
func identPart(s string) (name, rest string, ok bool) {
	if strings.HasPrefix(s, "`") {
		return quotedIdent(s)
	}
	end := strings.IndexAny(s, ".`")
	if end < 0 {
		end = len(s)
	}
	name = s[:end]
	if name == "" || strings.TrimSpace(name) != name {
		return "", "", false
	}
	return name, s[end:], true
}

func quotedIdent(s string) (name, rest string, ok bool) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] != '`' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == '`' {
			b.WriteByte('`')
			i++
			continue
		}
		if b.Len() == 0 {
			return "", "", false
		}
		return b.String(), s[i+1:], true
	}
	return "", "", false
}

// ParseFENodes parses "host:port[,host:port...]" (IPv6 hosts in brackets)
// into normalized host:port entries: the one rule for fenodes, shared by
// doris_binlog and doris_load and mirrored by their lint rule (the messages
// are the same).
func ParseFENodes(s string) ([]string, error) {
	var out []string
	for _, entry := range strings.Split(s, ",") {
		entry = strings.TrimSpace(entry)
		node, err := parseHostPort(entry)
		if errors.Is(err, errPortRange) {
			return nil, fmt.Errorf("fenodes entry %q has a port outside 1..65535", entry)
		}
		if err != nil {
			return nil, fmt.Errorf("fenodes entry %q must be host:http_port", entry)
		}
		out = append(out, node)
	}
	return out, nil
}

var errPortRange = errors.New("port must be 1..65535")

func parseHostPort(s string) (string, error) {
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return "", errors.New("must be host:port (IPv6 as [addr]:port)")
	}
	if host == "" || strings.ContainsAny(host, " /?#@[]") {
		return "", fmt.Errorf("invalid host %q", host)
	}
	if strings.Contains(host, ":") && !strings.HasPrefix(s, "[") {
		return "", errors.New("IPv6 host must be in brackets")
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != port {
		return "", fmt.Errorf("%w, got %q", errPortRange, port)
	}
	return net.JoinHostPort(host, port), nil
}

// FormatTableIdentifier is the inverse of ParseTableIdentifier: each part
// bare when it can be, else backtick-quoted. It names a table in
// checkpoints, logs and the event order.
func FormatTableIdentifier(db, table string) string {
	return identText(db) + "." + identText(table)
}

func identText(s string) string {
	if s != "" && !strings.ContainsAny(s, ".` \t\r\n") {
		return s
	}
	return QuoteIdent(s)
}
