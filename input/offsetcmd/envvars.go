package offsetcmd

import (
	"fmt"
	"regexp"
	"strings"
)

// envRef is ${NAME} or ${NAME:default}, as Benthos writes environment
// references in configs; $${...} is the escape for a literal ${...}.
var envRef = regexp.MustCompile(`\$?\$\{([0-9A-Za-z_.]+)(?::([^}]*))?\}`)

// expandEnv replaces the environment references of a config as `run` does,
// so that the command reads the same cache and connection settings. A
// reference to an unset variable without a default fails, naming the
// variable (never a value).
func expandEnv(text string, lookup func(string) (string, bool)) (string, error) {
	var missing []string
	out := envRef.ReplaceAllStringFunc(text, func(ref string) string {
		if strings.HasPrefix(ref, "$$") {
			return ref[1:]
		}
		m := envRef.FindStringSubmatch(ref)
		name, def, hasDef := m[1], m[2], strings.Contains(ref, ":")
		if v, ok := lookup(name); ok && v != "" {
			return v
		}
		if hasDef {
			return def
		}
		missing = append(missing, name)
		return ""
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("required environment variables are not set: %s", strings.Join(missing, ", "))
	}
	return out, nil
}
