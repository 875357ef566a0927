package prometheus

import "strings"

// sanitize replaces characters Prometheus names cannot hold.
func sanitize(name string) string {
	var b strings.Builder
	for i, r := range name {
		switch {
		case r == '_', r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9' && i > 0:
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// counterName gives counters the _total suffix Prometheus expects.
func counterName(name string) string {
	n := sanitize(name)
	if strings.HasSuffix(n, "_total") {
		return n
	}
	return n + "_total"
}

func gaugeName(name string) string { return sanitize(name) }

// timerName turns Benthos's nanosecond timers (`*_ns`) into seconds, the
// unit their values are converted to.
func timerName(name string) string {
	n := strings.TrimSuffix(sanitize(name), "_ns")
	if strings.HasSuffix(n, "_seconds") {
		return n
	}
	return n + "_seconds"
}

func (o Options) name(n string) string {
	if o.Prefix == "" {
		return n
	}
	return o.Prefix + "_" + n
}
