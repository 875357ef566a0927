package doris

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	// The FE's zone must load wherever the connector runs, including
	// containers without /usr/share/zoneinfo.
	_ "time/tzdata"
)

// TimeZoneSQL reads the time_zone of a statement-API session, which is the
// FE's global time_zone: the zone users write scan_timestamp in and read
// offset_timestamp in.
const TimeZoneSQL = "SELECT @@time_zone"

// FEZone is the FE's time_zone and a Go location with the same rules.
type FEZone struct {
	Name     string // as @@time_zone shows it
	Location *time.Location
}

// FETimeZone reads the FE's time_zone through the statement API.
func FETimeZone(ctx context.Context, c *Client) (FEZone, error) {
	res, err := Statement(ctx, c, TimeZoneSQL)
	if err != nil {
		return FEZone{}, fmt.Errorf("read the Doris FE time zone: %w", err)
	}
	if len(res.Rows) != 1 || len(res.Rows[0]) != 1 {
		return FEZone{}, fmt.Errorf("read the Doris FE time zone: want one value, got %v", res.Rows)
	}
	name, ok := res.CellText(0, 0)
	if !ok {
		return FEZone{}, fmt.Errorf("read the Doris FE time zone: unexpected value %v", res.Rows[0][0])
	}
	return LoadFEZone(name)
}

// Format renders an instant (epoch ms) as the FE's wall clock, floored to
// the second, as offset_timestamp is written: a value users can copy into
// scan_timestamp. In a repeated hour two instants share a text; reading it
// back gives the first, so a resume re-reads rather than skips.
func (z FEZone) Format(epochMs int64) string {
	return time.UnixMilli(epochMs).In(z.Location).Truncate(time.Second).Format(TimestampLayout)
}

// dorisOffset is Doris's offset form of a time_zone value: [+-]h:mm.
var dorisOffset = regexp.MustCompile(`^[+-]?\d{1,2}:\d{2}$`)

// dorisZoneAliases is Doris's TimeUtils.timeZoneAliasMap, looked up
// case-insensitively: Java's ZoneId.SHORT_IDS, with CST and PRC meaning
// Asia/Shanghai (not US Central time) and UTC and GMT meaning UTC.
var dorisZoneAliases = map[string]string{
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

// LoadFEZone maps a Doris time_zone value to a Go location as Doris reads
// it: offsets (+08:00, -5:00), the aliases above, GMT+h:mm and UTC+h:mm, and
// IANA names.
func LoadFEZone(name string) (FEZone, error) {
	v := name
	if alias, ok := dorisZoneAliases[strings.ToLower(v)]; ok {
		v = alias
	}
	up := strings.ToUpper(v)
	var loc *time.Location
	var err error
	switch {
	case up == "UTC" || up == "Z":
		loc = time.UTC
	case dorisOffset.MatchString(v):
		loc, err = offsetLocation(name, v)
	case (strings.HasPrefix(up, "GMT") || strings.HasPrefix(up, "UTC")) && dorisOffset.MatchString(v[3:]):
		loc, err = offsetLocation(name, v[3:])
	case strings.Contains(v, "/"):
		loc, err = time.LoadLocation(v)
	default:
		err = errors.New("not an offset, alias or region name")
	}
	if err != nil {
		return FEZone{}, fmt.Errorf("Doris FE time zone %q: %w", name, err)
	}
	return FEZone{Name: name, Location: loc}, nil
}

// offsetLocation is a fixed zone for [+-]h:mm, within Doris's accepted
// range of -12:00 to +14:00.
func offsetLocation(name, off string) (*time.Location, error) {
	neg := off[0] == '-'
	h, m, _ := strings.Cut(strings.TrimLeft(off, "+-"), ":")
	hh, _ := strconv.Atoi(h)
	mm, _ := strconv.Atoi(m)
	if mm > 59 || (neg && hh*100+mm > 1200) || (!neg && hh*100+mm > 1400) {
		return nil, fmt.Errorf("offset outside -12:00..+14:00")
	}
	secs := hh*3600 + mm*60
	if neg {
		secs = -secs
	}
	return time.FixedZone(name, secs), nil
}
