package offsetcmd

import (
	"errors"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// redacted replaces a secret wherever it would be printed.
const redacted = "******"

// secretKeyParts mark config fields that hold secrets.
var secretKeyParts = []string{"password", "secret", "token"}

// secrets collects the values of n's fields that hold secrets: errors of
// the FE client, the YAML parser or a cache may quote what they were
// given, and nothing the command prints may hold them.
func secrets(n *yaml.Node) []string {
	var out []string
	if n == nil {
		return nil
	}
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := strings.ToLower(n.Content[i].Value), n.Content[i+1]
			if v.Kind == yaml.ScalarNode && v.Value != "" && slices.ContainsFunc(secretKeyParts, func(p string) bool { return strings.Contains(k, p) }) {
				out = append(out, v.Value)
			}
		}
	}
	for _, c := range n.Content {
		out = append(out, secrets(c)...)
	}
	return out
}

// redactAll removes every secret from s.
func redactAll(s string, secrets []string) string {
	for _, sec := range secrets {
		s = strings.ReplaceAll(s, sec, redacted)
	}
	return s
}

// redact removes the config's secrets from s.
func (t *Target) redact(s string) string {
	if t == nil {
		return s
	}
	return redactAll(s, t.secrets)
}

// redactErr returns err with secrets removed from its text, keeping nil.
func redactErr(err error, secrets []string) error {
	if err == nil {
		return nil
	}
	if s := redactAll(err.Error(), secrets); s != err.Error() {
		return errors.New(s)
	}
	return err
}

// RedactError returns err without the config's secrets.
func (t *Target) RedactError(err error) error { return redactErr(err, t.secrets) }
