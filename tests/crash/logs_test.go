package crash

import (
	"regexp"
	"strings"
)

// The log lines the suite reads, all here so that a change of wording
// touches one place. The join and catch-up lines are at debug level (the
// input sums tables up at info level), which the runs log at.
var (
	// joinLine: a table that joined a running stream, with its own start.
	joinLine = `Table %s joins the stream: snapshot, \d+ tablets done, its binlog from (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)`
	// catchUpLine: a late table reading its own binlog window.
	catchUpLine = `Table %s catches up on its binlog \[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d), (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\)`
	// splitRetryLine: a snapshot split read again from its start after a
	// failure, which may repeat its rows within one run.
	splitRetryLine = `Snapshot split \S+ of %s \(tablets [^)]*\) failed, re-reading it from its start`
)

func tableLine(format, table string) *regexp.Regexp {
	return regexp.MustCompile(strings.ReplaceAll(format, "%s", regexp.QuoteMeta(qualified(table))))
}

// loggedJoinStart is the binlog start the last run that added table
// logged; "" when none did.
func (s *suite) loggedJoinStart(table string) string {
	re := tableLine(joinLine, table)
	start := ""
	for _, r := range s.runs {
		for _, m := range re.FindAllStringSubmatch(r.log(), -1) {
			start = m[1]
		}
	}
	return start
}

// catchUpEnd is the latest end of a catch-up window any run logged for
// table, "" when none. Its events in windows ending there or before are
// catch-up events; its events of the shared chain come in windows that
// end after it.
func (s *suite) catchUpEnd(table string) string {
	if table == "" {
		return ""
	}
	re := tableLine(catchUpLine, table)
	end := ""
	for _, r := range s.runs {
		for _, m := range re.FindAllStringSubmatch(r.log(), -1) {
			end = max(end, m[2])
		}
	}
	return end
}

// splitRetried reports whether r logged re-reading a snapshot split of
// table after a failure.
func (r *run) splitRetried(table string) bool {
	return tableLine(splitRetryLine, table).MatchString(r.log())
}
