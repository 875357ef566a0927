package harness

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
)

// MemoryCache is a cache resource "cp" that never expires entries.
const MemoryCache = "cache_resources:\n  - label: cp\n    memory:\n      compaction_interval: \"\"\n"

// FileCache is a cache resource "cp" in dir.
func FileCache(dir string) string {
	return fmt.Sprintf("cache_resources:\n  - label: cp\n    file:\n      directory: %q\n", dir)
}

// InputYAML is a doris_binlog input for db.table on srv with checkpoint cache
// "cp"; extra is added as more fields (one "key: value" per line).
func InputYAML(srv *dorissim.Server, table string, extra ...string) string {
	return SelectYAML(srv, "table_identifier: "+table, extra...)
}

// Now is the simulator's NOW(), to the second, as a scan_timestamp.
func Now(t testing.TB, srv *dorissim.Server) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rows, err := srv.Query(ctx, "SELECT NOW()")
	if err != nil || len(rows) != 1 || len(rows[0]) != 1 {
		t.Fatalf("SELECT NOW(): %v %v", rows, err)
	}
	switch v := rows[0][0].(type) {
	case time.Time:
		return v.Format("2006-01-02 15:04:05")
	case string:
		return v[:19]
	default:
		t.Fatalf("SELECT NOW() returned %T", v)
		return ""
	}
}

// SelectYAML is a doris_binlog input on srv with checkpoint cache "cp" whose
// table selection is sel, one YAML line such as "include: ['shop\\..*']";
// extra is added as more fields.
func SelectYAML(srv *dorissim.Server, sel string, extra ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "doris_binlog:\n  fenodes: %s\n  %s\n  username: root\n  password: \"\"\n  binlog_poll_interval: 1s\n  checkpoint_cache: cp\n", srv.HTTPAddr(), sel)
	for _, e := range extra {
		Indent(&b, e)
	}
	return b.String()
}

// Indent writes each line of text to b, indented by two spaces: how the
// tests nest a component's YAML fields under its name.
func Indent(b *strings.Builder, text string) {
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		b.WriteString("  " + line + "\n")
	}
}
