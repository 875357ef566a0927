package doris

import (
	"crypto/tls"
	"fmt"

	"github.com/redpanda-data/benthos/v4/public/service"
)

// Connection config field names, shared by doris_binlog and doris_load so that
// both components are configured and validated the same way.
const (
	FieldFENodes  = "fenodes"
	FieldUsername = "username"
	FieldPassword = "password"
	FieldTLS      = "tls"
)

// Connection is the validated connection part of a component config.
type Connection struct {
	FENodes            []string
	Username, Password string
	TLS                *tls.Config // nil unless TLSEnabled
	TLSEnabled         bool
}

// FENodesField is the `fenodes` field with its lint rule.
func FENodesField() *service.ConfigField {
	return service.NewStringField(FieldFENodes).
		Description("Comma-separated Doris FE HTTP addresses, `host:http_port`. They are tried in this order, starting with the FE that answered last, by the input, `doris_load` and its schema lookups alike.").
		Example("127.0.0.1:8030").Example("fe1:8030,fe2:8030").
		LintRule(FENodesLint)
}

// UsernameField is the `username` field.
func UsernameField() *service.ConfigField {
	return service.NewStringField(FieldUsername).Description("The Doris user.")
}

// PasswordField is the `password` field, a secret.
func PasswordField() *service.ConfigField {
	return service.NewStringField(FieldPassword).
		Description("The Doris user's password.").
		Secret().Default("")
}

// TLSField is the `tls` field; description says which connections it covers.
func TLSField(description string) *service.ConfigField {
	return service.NewTLSToggledField(FieldTLS).Description(description)
}

// FENodesLint mirrors ParseFENodes for `rpconnect-doris lint`.
const FENodesLint = `root = this.string().split(",").map_each(n -> if !n.trim().re_match("^(\\[[0-9A-Fa-f:.]+\\]|[^:\\s\\[\\]/]+):[0-9]{1,5}$") {
  "fenodes entry %q must be host:http_port".format(n.trim())
} else if n.trim().re_replace_all("^.*:", "").number() < 1 || n.trim().re_replace_all("^.*:", "").number() > 65535 {
  "fenodes entry %q has a port outside 1..65535".format(n.trim())
} else { "" })`

// ParseConnection reads and validates fenodes, username, password and tls.
// Errors name the field and never contain the password.
func ParseConnection(pc *service.ParsedConfig) (Connection, error) {
	var c Connection
	nodes, err := pc.FieldString(FieldFENodes)
	if err != nil {
		return c, fmt.Errorf("field %s: %w", FieldFENodes, err)
	}
	if c.FENodes, err = ParseFENodes(nodes); err != nil {
		return c, fmt.Errorf("field %s: %w", FieldFENodes, err)
	}
	if c.Username, err = pc.FieldString(FieldUsername); err != nil {
		return c, fmt.Errorf("field %s: %w", FieldUsername, err)
	}
	if c.Username == "" {
		return c, fmt.Errorf("field %s: must not be empty", FieldUsername)
	}
	if c.Password, err = pc.FieldString(FieldPassword); err != nil {
		return c, fmt.Errorf("field %s: must be a string", FieldPassword)
	}
	if c.TLS, c.TLSEnabled, err = pc.FieldTLSToggled(FieldTLS); err != nil {
		return c, fmt.Errorf("field %s: %w", FieldTLS, err)
	}
	if !c.TLSEnabled {
		c.TLS = nil
	}
	return c, nil
}
