package doris

import (
	"strings"
	"testing"
	"time"
)

func TestParseJDBCURL(t *testing.T) {
	j, err := ParseJDBCURL("jdbc:mysql://fe1:9030/ops?connectTimeout=5000&characterEncoding=utf8")
	if err != nil {
		t.Fatal(err)
	}
	if j.Host != "fe1" || j.Port != 9030 || j.Database != "ops" || j.Params["characterEncoding"] != "utf8" || j.Addr() != "fe1:9030" {
		t.Fatalf("%+v", j)
	}
	if d, err := j.durationParam("connectTimeout", time.Second); err != nil || d != 5*time.Second {
		t.Fatalf("connectTimeout %v %v", d, err)
	}
	j, err = ParseJDBCURL("JDBC:MySQL://fe1:9030")
	if err != nil || j.Port != 9030 || j.Database != "" {
		t.Fatalf("%+v %v", j, err)
	}
	j, err = ParseJDBCURL("jdbc:mysql://[::1]:9030/")
	if err != nil || j.Host != "::1" || j.Addr() != "[::1]:9030" {
		t.Fatalf("%+v %v", j, err)
	}
	j, err = ParseJDBCURL("jdbc:mysql://[::1]:9030?useSSL=true")
	if err != nil || j.Port != 9030 || j.Params["useSSL"] != "true" {
		t.Fatalf("%+v %v", j, err)
	}
}

func TestParseJDBCURLErrors(t *testing.T) {
	bad := map[string]string{
		"mysql://fe:9030":                            "must start with jdbc:mysql://",
		"jdbc:postgresql://fe:5432/db":               "must start with jdbc:mysql://",
		"jdbc:mysql://":                              "missing host",
		"jdbc:mysql://a:9030,b:9030/db":              "only one host",
		"jdbc:mysql://u:p@fe:9030":                   "credentials",
		"jdbc:mysql://fe:0":                          "port must be 1..65535",
		"jdbc:mysql://fe1":                           "missing port",
		"jdbc:mysql://[::1]/db":                      "missing port",
		"jdbc:mysql://fe:abc":                        "port must be 1..65535",
		"jdbc:mysql://::1:9030":                      "host:port",
		"jdbc:mysql://fe:9030/a/b":                   "invalid database",
		"jdbc:mysql://fe:9030/db?x":                  "invalid parameter",
		"jdbc:mysql://fe:9030/db?=1":                 "invalid parameter",
		"jdbc:mysql://fe:9030/db?a=%zz":              "invalid parameter",
		"jdbc:mysql://fe:9030/db?password=hunter2&x": "password=xxxxx",
	}
	for in, want := range bad {
		_, err := ParseJDBCURL(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: want %q, got %v", in, want, err)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%q: error leaks the password", in)
		}
	}
	j, _ := ParseJDBCURL("jdbc:mysql://fe:9030/db?socketTimeout=-1")
	if _, err := j.durationParam("socketTimeout", time.Second); err == nil {
		t.Fatal("negative socketTimeout accepted")
	}
}
