package input

import (
	"strconv"
	"testing"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

// Lint rules restate in Bloblang what one Go function decides; these tests
// hold each pair to the same answers, so that lint never accepts what the
// constructor refuses or the reverse.

func TestJDBCLintAgreesWithParseJDBCURL(t *testing.T) {
	for _, u := range []string{
		"jdbc:mysql://fe:9030", "JDBC:MySQL://fe:9030/db", "jdbc:mysql://[::1]:9030/ops?useSSL=false&password=x",
		"jdbc:mysql://fe:9030/db?connectTimeout=5000", "jdbc:mysql://fe", "jdbc:mysql://fe/db", "mysql://fe:9030",
		"jdbc:mysql://a:9030,b:9030", "jdbc:mysql://u:p@fe:9030", "jdbc:mysql://fe:0", "jdbc:mysql://fe:70000",
		"jdbc:mysql://fe:9030/a/b", "jdbc:mysql://fe:9030/db?x", "jdbc:mysql://fe:9030/db?=1", "jdbc:mysql://[::1]/db",
		"jdbc:postgresql://fe:5432/db", "jdbc:mysql://", "jdbc:mysql://u:p/w@fe:9030", "jdbc:mysql://fe:9030/db?a=b@c",
		"jdbc:mysql://fe:9030/db?a=b%40c", "jdbc:mysql://fe:9030/db?password=p%zzword", "jdbc:mysql://fe:9030/db?a%2=b",
		"jdbc:mysql://fe:9030/db?a=%e2%82%ac&b%5F=1", "jdbc:mysql://fe:9030/d%zzb", "jdbc:mysql://fe:9030/d%20b",
	} {
		_, goErr := doris.ParseJDBCURL(u)
		lintErr := lintInput(t, configYAML(with(nil, "jdbc_url", strconv.Quote(u))))
		if (goErr == nil) != (lintErr == nil) {
			t.Errorf("%q: ParseJDBCURL %v, lint %v", u, goErr, lintErr)
		}
	}
}

func TestTimestampLintAgreesWithValidateTimestamp(t *testing.T) {
	for _, ts := range []string{
		"2025-10-09 08:53:20", "2024-02-29 23:59:59", "2025-02-29 00:00:00", "2025-13-01 00:00:00",
		"2025-10-09T08:53:20", "2025-10-09 8:53:20", "2025-10-09 08:53:20 ", "2025-04-31 00:00:00",
		"2025-10-09 24:00:00", "2025-10-09 08:60:00", "0000-01-01 00:00:00", "1900-02-29 00:00:00", "2000-02-29 00:00:00",
	} {
		goErr := doris.ValidateTimestamp(ts)
		lintErr := lintInput(t, configYAML(with(nil, "scan_mode", "from-timestamp", "checkpoint_cache", "cp", "scan_timestamp", strconv.Quote(ts))))
		if (goErr == nil) != (lintErr == nil) {
			t.Errorf("%q: ValidateTimestamp %v, lint %v", ts, goErr, lintErr)
		}
	}
}

func TestFENodesLintAgreesWithParseFENodes(t *testing.T) {
	for _, n := range []string{"fe1:8030", "fe1:8030, [::1]:8030", "fe1", "fe1:0", "fe1:70000", "fe1:8030,,fe2:8030", "::1:8030", "h 2:8030", "fe/x:80"} {
		_, goErr := doris.ParseFENodes(n)
		lintErr := lintInput(t, configYAML(with(nil, "fenodes", strconv.Quote(n))))
		if (goErr == nil) != (lintErr == nil) {
			t.Errorf("%q: ParseFENodes %v, lint %v", n, goErr, lintErr)
		}
	}
}
