package sqlengine

import (
	"errors"
	"testing"
)

func TestHostTimeZone(t *testing.T) {
	none := func(string) (string, error) { return "", errors.New("no link") }
	noFile := func(string) ([]byte, error) { return nil, errors.New("no file") }
	link := func(p string) func(string) (string, error) {
		return func(string) (string, error) { return p, nil }
	}
	file := func(s string) func(string) ([]byte, error) {
		return func(string) ([]byte, error) { return []byte(s), nil }
	}
	for _, c := range []struct {
		name, tz string
		link     func(string) (string, error)
		file     func(string) ([]byte, error)
		want     string
	}{
		{"TZ wins", "Europe/Berlin", link("/usr/share/zoneinfo/Asia/Tokyo"), noFile, "Europe/Berlin"},
		{"TZ file path", ":/usr/share/zoneinfo/Europe/Paris", none, noFile, "Europe/Paris"},
		{"localtime link", "", link("../usr/share/zoneinfo/Etc/UTC"), noFile, "Etc/UTC"},
		{"etc/timezone", "", none, file("Asia/Kolkata\n"), "Asia/Kolkata"},
		{"alias", "PRC", none, noFile, "Asia/Shanghai"},
		{"nothing known", "", none, noFile, "UTC"},
		{"unknown zone", "Mars/Olympus", none, noFile, "UTC"},
		{"POSIX rule", "CET-1CEST", none, noFile, "UTC"},
	} {
		if got := hostTimeZone(c.tz, c.link, c.file); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
		if _, err := standardizeTimeZone(c.want); err != nil {
			t.Errorf("%s: %q cannot be SET again: %v", c.name, c.want, err)
		}
	}
}
