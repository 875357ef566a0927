package sqlengine

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// offsetZone is Doris's TIMEZONE_OFFSET_FORMAT_REG: [+-]h:mm or [+-]hh:mm.
var offsetZone = regexp.MustCompile(`^[+-]?\d{1,2}:\d{2}$`)

// zoneAliases is Doris's TimeUtils.timeZoneAliasMap (case-insensitive keys):
// Java's ZoneId.SHORT_IDS, with CST and PRC meaning Asia/Shanghai and UTC
// and GMT meaning UTC.
var zoneAliases = map[string]string{
	"act": "Australia/Darwin", "aet": "Australia/Sydney", "agt": "America/Argentina/Buenos_Aires",
	"art": "Africa/Cairo", "ast": "America/Anchorage", "bet": "America/Sao_Paulo", "bst": "Asia/Dhaka",
	"cat": "Africa/Harare", "cnt": "America/St_Johns", "cst": "Asia/Shanghai", "ctt": "Asia/Shanghai",
	"eat": "Africa/Addis_Ababa", "ect": "Europe/Paris", "iet": "America/Indiana/Indianapolis",
	"ist": "Asia/Kolkata", "jst": "Asia/Tokyo", "mit": "Pacific/Apia", "net": "Asia/Yerevan",
	"nst": "Pacific/Auckland", "plt": "Asia/Karachi", "pnt": "America/Phoenix", "prt": "America/Puerto_Rico",
	"pst": "America/Los_Angeles", "sst": "Pacific/Guadalcanal", "vst": "Asia/Ho_Chi_Minh",
	"est": "-05:00", "mst": "-07:00", "hst": "-10:00",
	"prc": "Asia/Shanghai", "utc": "UTC", "gmt": "UTC",
}

func errUnknownTimeZone(v string) error {
	return &storage.Error{Code: 1298, Message: fmt.Sprintf("Unknown or incorrect time zone: '%s'", v)}
}

// standardizeTimeZone validates a time_zone value the way Doris's
// TimeUtils.checkTimeZoneValidAndStandardize does and returns the value the
// variable then holds: offsets become +hh:mm (within -12:00..+14:00), named
// zones and aliases stay as written.
func standardizeTimeZone(v string) (string, error) {
	if offsetZone.MatchString(v) {
		std, ok := standardOffset(v)
		if !ok {
			return "", errUnknownTimeZone(v)
		}
		return std, nil
	}
	if !strings.Contains(v, "/") {
		if _, ok := zoneAliases[strings.ToLower(v)]; !ok {
			up := strings.ToUpper(v)
			if (strings.HasPrefix(up, "GMT") || strings.HasPrefix(up, "UTC")) && offsetZone.MatchString(v[3:]) {
				std, ok := standardOffset(v[3:])
				if !ok {
					return "", errUnknownTimeZone(v)
				}
				v = v[:3] + std
			} else {
				return "", errUnknownTimeZone(v)
			}
		}
	}
	if _, err := loadZone(v); err != nil {
		return "", err
	}
	return v, nil
}

// standardOffset turns [+-]h:mm into +hh:mm, rejecting offsets outside
// -12:00..+14:00 as Doris does.
func standardOffset(v string) (string, bool) {
	neg := v[0] == '-'
	body := strings.TrimLeft(v, "+-")
	h, m, _ := strings.Cut(body, ":")
	hh, err1 := strconv.Atoi(h)
	mm, err2 := strconv.Atoi(m)
	if err1 != nil || err2 != nil || mm > 59 {
		return "", false
	}
	if tz := hh*100 + mm; (neg && tz > 1200) || (!neg && tz > 1400) {
		return "", false
	}
	sign := "+"
	if neg {
		sign = "-"
	}
	return fmt.Sprintf("%s%02d:%02d", sign, hh, mm), true
}

var zoneCache sync.Map // time_zone value -> *time.Location

// loadZone is the location a (standardized) time_zone value names.
func loadZone(v string) (*time.Location, error) {
	if loc, ok := zoneCache.Load(v); ok {
		return loc.(*time.Location), nil
	}
	loc, err := resolveZone(v)
	if err != nil {
		return nil, err
	}
	zoneCache.Store(v, loc)
	return loc, nil
}

func resolveZone(v string) (*time.Location, error) {
	name := v
	if alias, ok := zoneAliases[strings.ToLower(v)]; ok {
		name = alias
	}
	up := strings.ToUpper(name)
	switch {
	case up == "UTC" || up == "Z":
		return time.UTC, nil
	case offsetZone.MatchString(name):
		return fixedZone(name, name)
	case (strings.HasPrefix(up, "GMT") || strings.HasPrefix(up, "UTC")) && offsetZone.MatchString(name[3:]):
		return fixedZone(name, name[3:])
	}
	if !strings.Contains(name, "/") {
		return nil, errUnknownTimeZone(v)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, errUnknownTimeZone(v)
	}
	return loc, nil
}

func fixedZone(name, offset string) (*time.Location, error) {
	std, ok := standardOffset(offset)
	if !ok {
		return nil, errUnknownTimeZone(name)
	}
	h, _ := strconv.Atoi(std[1:3])
	m, _ := strconv.Atoi(std[4:6])
	off := h*3600 + m*60
	if std[0] == '-' {
		off = -off
	}
	return time.FixedZone(name, off), nil
}

// sessionLocation is the session time_zone as a Go location; @incr bounds,
// NOW() and the time functions all read it.
func sessionLocation(ctx *sql.Context) (*time.Location, error) {
	v, err := ctx.GetSessionVariable(ctx, "time_zone")
	if err != nil {
		return nil, fmt.Errorf("read session time_zone: %w", err)
	}
	name, _ := v.(string)
	if strings.EqualFold(name, "SYSTEM") || name == "" {
		return time.UTC, nil // the simulator's host zone is UTC by definition
	}
	return loadZone(name)
}

// globalZone is an engine's global time_zone. GMS keeps global variables
// per process, but every simulator in a test process is its own FE.
type globalZone struct {
	mu    sync.Mutex
	value string
}

func (g *globalZone) get() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.value
}

func (g *globalZone) set(v string) {
	g.mu.Lock()
	g.value = v
	g.mu.Unlock()
}
