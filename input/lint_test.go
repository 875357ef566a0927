package input

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

// Each lint rule restates in Bloblang what a Go check decides; these tests
// hold them to the same answers on the inputs users write, so that lint
// never refuses what the input would run, nor passes what it refuses.

// linter lints configs against one registered environment, which keeps
// many lint calls quick.
func linter(t *testing.T) func(body string) error {
	t.Helper()
	env := service.NewEmptyEnvironment()
	if err := env.RegisterBatchInput("doris_binlog", Spec(), func(*service.ParsedConfig, *service.Resources) (service.BatchInput, error) {
		return nil, errTestCtor
	}); err != nil {
		t.Fatal(err)
	}
	return func(body string) error { return env.NewStreamBuilder().AddInputYAML("doris_binlog:\n" + indent(body)) }
}

func agree(t *testing.T, what, value string, lintErr, goErr error) {
	t.Helper()
	if (lintErr == nil) != (goErr == nil) {
		t.Errorf("%s %q: lint %v, Go %v", what, value, lintErr, goErr)
	}
}

func TestTableLintAgreesWithParseTableName(t *testing.T) {
	lint := linter(t)
	for _, v := range []string{
		"shop.orders", "`my.db`.`t`", "`a``b`.c", "db.`t.x`", "数据.表", "Shop.Orders",
		"orders", "a.b.c", ".b", "a.", "``.b", "`a.b", "a`b.c", "a .b", "`a`b.c", "a..b", "`a`.`b`x", " shop.a", "shop.a\t", "my db.t", "`my db`.t", "a\tb.c", "a. b",
	} {
		_, goErr := parseTableName(strings.TrimSpace(v))
		agree(t, "table_identifier", v, lint(configYAML(with(nil, "table_identifier", strconv.Quote(v)))), goErr)
		agree(t, "tables entry", v, lint(configYAML(with(nil, "table_identifier", "-", "tables", "["+strconv.Quote(v)+"]"))), goErr)
		_, _, offErr := doris.ParseTableIdentifier(v) // binlog_offset_table is not trimmed
		agree(t, "binlog_offset_table", v, lint(configYAML(with(incr, "binlog_offset_table", strconv.Quote(v), "binlog_consumer_id", "c1", "jdbc_url", "jdbc:mysql://fe:9030"))), offErr)
	}
}

func TestPatternLintAgreesWithCompilePatterns(t *testing.T) {
	lint := linter(t)
	for _, p := range []string{`shop\..*`, `(?i)shop\.a`, `crm\.(a|b)`, `\p{Han}+\..*`, `(`, `a)|(b`, `[z-a]`, `a{2,1}`, `x**`, `\C`, `(?P<n>a)\..*`} {
		_, goErr := compilePatterns(fieldInclude, []string{p})
		agree(t, "include", p, lint(configYAML(with(nil, "table_identifier", "-", "include", "["+strconv.Quote(p)+"]"))), goErr)
	}
}

func TestDurationLintAgreesWithParseDuration(t *testing.T) {
	lint := linter(t)
	for _, d := range []string{"1s", "999ms", "1.5s", ".5s", "1m30s", "+2s", "1000000us", "1000000µs", "2h45m", "0", "-1s", "soon", "5", "1e3s", "1s1", ""} {
		goErr := func() error {
			v, err := time.ParseDuration(d)
			if err == nil && v < time.Second {
				return strconv.ErrRange
			}
			return err
		}()
		agree(t, "binlog_poll_interval", d, lint(configYAML(with(nil, "binlog_poll_interval", strconv.Quote(d)))), goErr)
	}
}

func TestExecMemLimitLintAgreesWithParseByteSize(t *testing.T) {
	lint := linter(t)
	for _, s := range []string{"1024", "10b", "2KB", "8192mb", "5 Mb", "0010mb", "1G", "0", "00", "0mb", "8tb", "1.5g", "-1", "mb", ""} {
		_, goErr := parseByteSize(s)
		agree(t, "exec_mem_limit", s, lint(configYAML(with(nil, "exec_mem_limit", strconv.Quote(s)))), goErr)
	}
}
