package sqlengine

import (
	"os"
	"path/filepath"
	"strings"
)

// HostTimeZone is the time_zone a Doris FE on this host starts with. Doris
// defaults the variable to the JVM's zone ID (SessionVariable.java:
// `timeZone = TimeUtils.getSystemTimeZone().getID()`; TimeUtils.java:
// `ZoneId.of(TimeZone.getDefault().getID(), timeZoneAliasMap)`), never to
// MySQL's SYSTEM. The JVM takes the zone from TZ, else from the
// /etc/localtime link, else /etc/timezone; a zone it does not know becomes
// GMT, which Doris's alias map reads as UTC. A zone Doris would not accept
// back in SET time_zone (a POSIX rule such as EST5EDT) is also read as UTC,
// so that whatever @@time_zone shows can be set again.
func HostTimeZone() string {
	return hostTimeZone(os.Getenv("TZ"), os.Readlink, os.ReadFile)
}

func hostTimeZone(tz string, readlink func(string) (string, error), readFile func(string) ([]byte, error)) string {
	var id string
	if tz != "" {
		id = zoneIDFromPath(strings.TrimPrefix(tz, ":"))
	} else if link, err := readlink("/etc/localtime"); err == nil {
		id = zoneIDFromPath(link)
	} else if b, err := readFile("/etc/timezone"); err == nil {
		id = strings.TrimSpace(string(b))
	}
	if alias, ok := zoneAliases[strings.ToLower(id)]; ok {
		id = alias
	}
	if std, err := standardizeTimeZone(id); err == nil {
		return std
	}
	return "UTC"
}

// zoneIDFromPath turns a zoneinfo file path (/usr/share/zoneinfo/Etc/UTC)
// into its zone ID, as the JVM reads the /etc/localtime link.
func zoneIDFromPath(p string) string {
	if i := strings.Index(p, "zoneinfo/"); i >= 0 {
		return filepath.Clean(p[i+len("zoneinfo/"):])
	}
	return p
}
