package doris

import (
	"strings"
	"testing"

	"github.com/redpanda-data/benthos/v4/public/service"
)

func parseConnYAML(t *testing.T, yaml string) (Connection, error) {
	t.Helper()
	spec := service.NewConfigSpec().Fields(FENodesField(), UsernameField(), PasswordField(), TLSField("tls"))
	pc, err := spec.ParseYAML(yaml, nil)
	if err != nil {
		t.Fatalf("parse %q: %v", yaml, err)
	}
	return ParseConnection(pc)
}

func TestParseConnection(t *testing.T) {
	c, err := parseConnYAML(t, "fenodes: 'fe1:8030, [::1]:8031'\nusername: etl\npassword: s3cret\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.FENodes) != 2 || c.FENodes[1] != "[::1]:8031" || c.Username != "etl" || c.Password != "s3cret" || c.TLS != nil || c.TLSEnabled {
		t.Fatalf("connection %+v", c)
	}
	for yaml, want := range map[string]string{
		"fenodes: fe1\nusername: etl\npassword: s3cret\n":     "field fenodes",
		"fenodes: fe1:0\nusername: etl\npassword: s3cret\n":   "field fenodes",
		"fenodes: fe1:8030\nusername: ''\npassword: s3cret\n": "field username: must not be empty",
	} {
		_, err := parseConnYAML(t, yaml)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%q: error %v, want %q without the password", yaml, err, want)
		}
	}
	c, err = parseConnYAML(t, "fenodes: fe1:8030\nusername: etl\ntls:\n  enabled: true\n")
	if err != nil || c.TLS == nil || !c.TLSEnabled {
		t.Fatalf("tls enabled: %+v %v", c, err)
	}
}
