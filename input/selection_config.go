package input

import (
	"strings"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// parseSelection reads table_identifier, tables, include and exclude, of
// which exactly one of the first three is set. An empty list counts as
// unset, as it does for lint (Benthos fills absent lists with []).
func parseSelection(pc *service.ParsedConfig, c *Config) error {
	set := map[string]bool{}
	for _, f := range []string{fieldTableIdentifier, fieldTables, fieldInclude, fieldExclude} {
		set[f] = isSet(pc, f)
	}
	if n := btoi(set[fieldTableIdentifier]) + btoi(set[fieldTables]) + btoi(set[fieldInclude]); n != 1 {
		return fieldErrf(fieldTableIdentifier, "exactly one of table_identifier, tables and include must be set")
	}
	if set[fieldExclude] && !set[fieldInclude] {
		return fieldErrf(fieldExclude, "exclude is only valid together with include")
	}
	var err error
	switch {
	case set[fieldTableIdentifier]:
		err = parseFixedTables(pc, c, fieldTableIdentifier)
	case set[fieldTables]:
		err = parseFixedTables(pc, c, fieldTables)
	default:
		err = parsePatterns(pc, c)
	}
	if err != nil {
		return err
	}
	c.DiscoveryInterval, err = parseDuration(pc, fieldDiscoveryInterval, 0, "must not be negative")
	return err
}

func parseFixedTables(pc *service.ParsedConfig, c *Config, field string) error {
	var idents []string
	if field == fieldTableIdentifier {
		s, err := reqString(pc, field)
		if err != nil {
			return err
		}
		idents = []string{s}
	} else {
		list, err := pc.FieldStringList(field)
		if err != nil {
			return fieldErr(field, err)
		}
		idents = list
	}
	seen := map[string]bool{}
	for i, id := range idents {
		t, err := parseTableName(strings.TrimSpace(id))
		if err != nil {
			if field == fieldTables {
				return fieldErrf(field, "entry %d: %v", i, err)
			}
			return fieldErr(field, err)
		}
		if seen[t.key] {
			return fieldErrf(field, "entry %d: %s is listed twice", i, t.key)
		}
		seen[t.key] = true
		c.Selection.fixed = append(c.Selection.fixed, t)
	}
	return nil
}

func parsePatterns(pc *service.ParsedConfig, c *Config) error {
	inc, err := pc.FieldStringList(fieldInclude)
	if err != nil {
		return fieldErr(fieldInclude, err)
	}
	if c.Selection.include, err = compilePatterns(fieldInclude, inc); err != nil {
		return err
	}
	if !isSet(pc, fieldExclude) {
		return nil
	}
	exc, err := pc.FieldStringList(fieldExclude)
	if err != nil {
		return fieldErr(fieldExclude, err)
	}
	c.Selection.exclude, err = compilePatterns(fieldExclude, exc)
	return err
}

// defaultCheckpointKey names a single table readably and other selections
// by the digest of their canonical text; see checkpoint.TableKey for why two
// selections never share a key.
func defaultCheckpointKey(s *selection) string {
	if !s.byPattern() && len(s.fixed) == 1 {
		return checkpoint.TableKey(s.fixed[0].db, s.fixed[0].table)
	}
	return checkpoint.SelectionKey(s.canonical())
}

// legacyCheckpointKey is the key that earlier builds used for the same
// selection, from which a stored checkpoint is carried over.
func legacyCheckpointKey(s *selection) string {
	if !s.byPattern() && len(s.fixed) == 1 {
		return checkpoint.LegacyTableKey(s.fixed[0].db, s.fixed[0].table)
	}
	return checkpoint.LegacySelectionKey(s.canonical())
}

// isSet tells whether a field holds a value: a string at all, a list with
// at least one entry.
func isSet(pc *service.ParsedConfig, field string) bool {
	if !pc.Contains(field) {
		return false
	}
	if list, err := pc.FieldStringList(field); err == nil {
		return len(list) > 0
	}
	return true
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
