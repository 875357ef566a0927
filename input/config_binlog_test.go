package input

import (
	"strings"
	"testing"
)

// binlogOptionCases are the invalid combinations of the update and filter
// options; each must be caught by lint and by the constructor alike.
var binlogOptionCases = []invalidCase{
	{"merge and ignore update before", with(incr, "binlog_merge_updates", "true", "binlog_ignore_update_before", "true"),
		"binlog_merge_updates and binlog_ignore_update_before conflict", "binlog_merge_updates", "conflict"},
	{"binlog_filter in snapshot mode", with(nil, "binlog_filter", `"id > 5"`),
		"binlog_filter is only valid in incremental scan modes", "binlog_filter", "only valid in incremental scan modes"},
	{"binlog_filter separator", with(incr, "binlog_filter", `"id > 5; DROP TABLE t"`), "statement separator", "binlog_filter", "statement separator"},
	{"binlog_filter comment", with(incr, "binlog_filter", `"id > 5 -- rest"`), "comments are not allowed", "binlog_filter", "comment marker"},
	{"binlog_filter block comment", with(incr, "binlog_filter", `"id > 5 /* x */"`), "comments are not allowed", "binlog_filter", "comment marker"},
	{"binlog_filter union", with(incr, "binlog_filter", `"1 = 1 UNION SELECT * FROM s.t"`), "must be one condition", "binlog_filter", "UNION"},
	{"binlog_filter limit", with(incr, "binlog_filter", `"id > 1 LIMIT 5"`), "must be one condition", "binlog_filter", "LIMIT"},
	{"binlog_filter empty", with(incr, "binlog_filter", `"  "`), "binlog_filter must not be empty", "binlog_filter", "empty"},
	{"binlog_filter open quote", with(incr, "binlog_filter", `"name = 'x"`), "", "binlog_filter", "never closed"},
	{"filter_query separator", with(nil, "filter_query", `"id > 5; DELETE FROM t"`), "statement separator", "filter_query", "statement separator"},
	{"filter_query comment", with(nil, "filter_query", `"id > 5 #"`), "comments are not allowed", "filter_query", "comment marker"},
}

func TestBinlogOptionsInvalid(t *testing.T) {
	for _, tc := range binlogOptionCases {
		t.Run(tc.name, func(t *testing.T) {
			body := configYAML(tc.over)
			lintErr := lintInput(t, body)
			if tc.lint != "" && (lintErr == nil || !strings.Contains(lintErr.Error(), tc.lint)) {
				t.Errorf("lint error %v, want it to contain %q\n%s", lintErr, tc.lint, body)
			}
			conf, err := parseInput(t, body)
			if err == nil {
				t.Fatalf("parseConfig accepted %s as %+v", body, conf)
			}
			if !strings.Contains(err.Error(), "field "+tc.field+":") || !strings.Contains(err.Error(), tc.parse) {
				t.Errorf("parse error %q, want field %s and %q", err, tc.field, tc.parse)
			}
		})
	}
}

// Quoted text may hold anything the rules refuse outside quotes, and lint
// must agree with the constructor on that.
func TestBinlogOptionsValid(t *testing.T) {
	for _, over := range []map[string]string{
		with(incr, "binlog_merge_updates", "true", "binlog_filter", `"amount > 100 OR note = 'a;b -- c # d /* e'"`),
		with(incr, "binlog_ignore_update_before", "true", "binlog_filter", "\"region IN ('eu', 'us') AND `order` > 0\""),
		with(incr, "binlog_filter", `"id IN (SELECT id FROM s.allowed ORDER BY id LIMIT 5)"`),
		with(nil, "filter_query", `"status = 'paid;'"`),
	} {
		body := configYAML(over)
		if err := lintInput(t, body); err != nil {
			t.Errorf("lint of a valid config failed: %v\n%s", err, body)
		}
		conf, err := parseInput(t, body)
		if err != nil {
			t.Errorf("parse of a valid config failed: %v\n%s", err, body)
			continue
		}
		if over["binlog_merge_updates"] == "true" && !conf.MergeUpdates {
			t.Errorf("binlog_merge_updates not parsed: %+v", conf)
		}
		if over["binlog_ignore_update_before"] == "true" && !conf.IgnoreUpdateBefore {
			t.Errorf("binlog_ignore_update_before not parsed: %+v", conf)
		}
	}
}
