package flight

import "strings"

// limitTexts are how Doris reports a query that ran out of the session's
// exec_mem_limit or query_timeout. The texts changed across releases
// ("Memory exceed limit" up to 1.1, "Memory limit exceeded" and the
// [MEM_LIMIT_EXCEEDED] status since 1.2; "Timeout" and the [TIMEOUT]
// status for query_timeout since 2.1), so every known form is matched,
// case-insensitively.
var limitTexts = []string{
	"mem_limit_exceeded",
	"memory limit exceeded",
	"memory exceed limit",
	"exceed limit",
	"[timeout]",
	"detailmessage = timeout",
	"query timeout",
	"query is timeout",
}

// IsQueryLimit reports whether err is Doris refusing a query for its size:
// exec_mem_limit or query_timeout. The same query fails again; a smaller
// one (a shorter window) may not.
func IsQueryLimit(err error) bool {
	if err == nil {
		return false
	}
	msg := strings.ToLower(err.Error())
	for _, t := range limitTexts {
		if strings.Contains(msg, t) {
			return true
		}
	}
	return false
}
