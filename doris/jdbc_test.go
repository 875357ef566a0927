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
		"jdbc:mysql://root:hunter2@fe:9030/db":       "credentials",
		"jdbc:mysql://root:hun/ter2@fe:9030/db":      "credentials",
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

// Every message about a jdbc_url keeps the secrets it may hold out: user
// info, every parameter value, and the whole value when it is not a
// jdbc:mysql:// URL at all.
func TestParseJDBCURLErrorsHideSecrets(t *testing.T) {
	cases := map[string][]string{
		"jdbc:mysql://root:S3cretPw@fe1:9030/db":             {"credentials", "fe1:9030/db"},
		"jdbc:mysql://root:S3c/ret?Pw@fe1:9030/db":           {"credentials"},
		"jdbc:mysql://fe1:9030/db?password=p%zzword":         {"invalid parameter", "password=xxxxx"},
		"jdbc:mysql://fe1:9030/db?user=x&password=p%zzword":  {"user=xxxxx&password=xxxxx"},
		"jdbc:mysql://fe1:9030/db?token=S3cretPw&bad":        {"invalid parameter", "token=xxxxx"},
		"jdbc:mysql://fe1:9030/db?S3cretPw":                  {"invalid parameter"},
		"jdbc:mysql://fe1:9030/db?sslKeyPassword=S3cretPw&a": {"sslKeyPassword=xxxxx"},
		"mysql://root:S3cretPw@fe1:9030/db":                  {"must start with jdbc:mysql://"},
		"root:S3cretPw@fe1:9030":                             {"must start with jdbc:mysql://"},
		"jdbc:mysql://u:S3cretPw@a:9030,b:9030":              {"credentials", "a:9030,b:9030"},
	}
	for in, wants := range cases {
		_, err := ParseJDBCURL(in)
		if err == nil {
			t.Errorf("%q accepted", in)
			continue
		}
		for _, w := range wants {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%q: error %q lacks %q", in, err, w)
			}
		}
		for _, secret := range []string{"S3cretPw", "p%zzword", "zzword", "S3c/ret"} {
			if strings.Contains(err.Error(), secret) {
				t.Errorf("%q: error %q leaks %q", in, err, secret)
			}
		}
	}
}

func TestRedactJDBC(t *testing.T) {
	cases := map[string]string{
		"jdbc:mysql://fe1:9030/db":                                "jdbc:mysql://fe1:9030/db",
		"JDBC:MySQL://fe1:9030":                                   "JDBC:MySQL://fe1:9030",
		"jdbc:mysql://root:pw@fe1:9030/db":                        "jdbc:mysql://xxxxx@fe1:9030/db",
		"jdbc:mysql://a@b:p@w@fe1:9030/db?x=1":                    "jdbc:mysql://xxxxx@fe1:9030/db?x=xxxxx",
		"jdbc:mysql://root:p?w/d@fe1:9030/db":                     "jdbc:mysql://xxxxx@fe1:9030/db",
		"jdbc:mysql://fe1:9030/db?connectTimeout=5000&password=p": "jdbc:mysql://fe1:9030/db?connectTimeout=xxxxx&password=xxxxx",
		"jdbc:mysql://fe1:9030/db?password=p%zzword":              "jdbc:mysql://fe1:9030/db?password=xxxxx",
		"jdbc:mysql://fe1:9030/db?secret&a%20b=c&=d":              "jdbc:mysql://fe1:9030/db?xxxxx&xxxxx&xxxxx",
		"jdbc:mysql://fe1:9030/db?a=b=c":                          "jdbc:mysql://fe1:9030/db?a=xxxxx",
		"mysql://root:pw@fe1:9030":                                "xxxxx",
		"":                                                        "xxxxx",
	}
	for in, want := range cases {
		if got := RedactJDBC(in); got != want {
			t.Errorf("RedactJDBC(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDurationParamErrorHidesValue(t *testing.T) {
	j, err := ParseJDBCURL("jdbc:mysql://fe:9030/db?socketTimeout=S3cretPw")
	if err != nil {
		t.Fatal(err)
	}
	_, err = j.durationParam("socketTimeout", time.Second)
	if err == nil || !strings.Contains(err.Error(), "socketTimeout") || strings.Contains(err.Error(), "S3cretPw") {
		t.Fatalf("err = %v, want one naming socketTimeout without its value", err)
	}
}
