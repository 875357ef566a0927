package input

import (
	"net"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/internal/testnet"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
)

// connTestSim is a simulator with d.a (row binlog) and d.plain (none).
func connTestSim(t *testing.T) *dorissim.Server {
	t.Helper()
	return startSim(t, dorissim.Config{}, "CREATE DATABASE d", "CREATE TABLE d.a"+binlogDDL, "CREATE TABLE d.plain"+plainDDL)
}

const wrongPassword = "n0t-the-pa55word"

func failureTexts(res service.ConnectionTestResults) []string {
	var out []string
	for _, r := range res {
		if r.Err != nil {
			out = append(out, r.Err.Error())
		}
	}
	return out
}

// The connection test reports each problem once, naming the FE, the table
// or the Flight SQL server; every FE failing ends it before the tables
// are looked at; a healthy setup is one success.
func TestConnectionTestNamesEachProblem(t *testing.T) {
	srv := connTestSim(t)
	dead := testnet.FreeAddr(t)
	_, deadPort, _ := net.SplitHostPort(dead)
	fixed := func(names ...string) selection {
		var sel selection
		for _, n := range names {
			tn, err := parseTableName(n)
			if err != nil {
				t.Fatal(err)
			}
			sel.fixed = append(sel.fixed, tn)
		}
		return sel
	}
	pattern := func(include string) selection {
		return selection{include: []*regexp.Regexp{regexp.MustCompile(include)}}
	}
	for _, tc := range []struct {
		name string
		conf func(*Config)
		want []string // one failure naming each, in order; none: success
	}{
		{"healthy", nil, nil},
		{"a pattern matching d.a", func(c *Config) { c.Selection = pattern(`^d\.a$`) }, nil},
		{"a pattern matching nothing", func(c *Config) { c.Selection = pattern(`^x\.`) }, []string{"no table matches include (minus exclude)"}},
		{"a missing table", func(c *Config) { c.Selection = fixed("d.a", "d.gone") }, []string{"table d.gone does not exist"}},
		{"a second FE down", func(c *Config) { c.FENodes = append(c.FENodes, dead) }, []string{"FE " + dead + ":"}},
		{"every FE down", func(c *Config) {
			c.FENodes = []string{dead}
			c.Selection = fixed("d.gone") // not looked at
		}, []string{"FE " + dead + ":"}},
		{"a wrong password", func(c *Config) { c.Password = wrongPassword }, []string{"FE " + srv.HTTPAddr() + ":"}},
		{"a wrong Flight SQL port", func(c *Config) { c.FlightSQLPort, _ = strconv.Atoi(deadPort) }, []string{"Flight SQL on 127.0.0.1:"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conf := &Config{FENodes: []string{srv.HTTPAddr()}, Username: simUser, Password: simPassword, Retries: 1,
				ConnectTimeout: time.Second, ReadTimeout: 2 * time.Second, ScanMode: "latest", IncrementType: "DETAIL",
				Selection: fixed("d.a")}
			if tc.conf != nil {
				tc.conf(conf)
			}
			log, _ := captureLogger(t)
			m, _ := capturedMetrics(t)
			res := connectionTest(testCtx(t), conf, log, m)
			got := failureTexts(res)
			if len(tc.want) == 0 {
				if len(res) != 1 || len(got) != 0 {
					t.Fatalf("results %d, failures %q; want one success", len(res), got)
				}
				return
			}
			if len(got) != len(tc.want) || len(res) != len(got) {
				t.Fatalf("failures %q (of %d results), want one naming each of %q", got, len(res), tc.want)
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("failure %q does not name %q", got[i], w)
				}
				if strings.Contains(got[i], wrongPassword) {
					t.Errorf("failure %q shows the password", got[i])
				}
			}
		})
	}
}
