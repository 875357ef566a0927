package input

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

// tableName is one Doris table. key is its `db.table` identifier, bare
// where possible: it names the table in checkpoints, logs, metrics and the
// order of events within a transaction.
type tableName struct {
	db, table string
	key       string
}

func newTableName(db, table string) tableName {
	return tableName{db: db, table: table, key: doris.FormatTableIdentifier(db, table)}
}

func parseTableName(s string) (tableName, error) {
	db, table, err := doris.ParseTableIdentifier(s)
	if err != nil {
		return tableName{}, err
	}
	return newTableName(db, table), nil
}

// selection is which tables the input follows: a fixed list
// (table_identifier or tables), or every table whose `db.table` matches an
// include pattern and no exclude pattern.
type selection struct {
	fixed   []tableName
	include []*regexp.Regexp
	exclude []*regexp.Regexp
}

// byPattern tells whether tables are found by include patterns, where a
// table that cannot be followed is skipped rather than fatal.
func (s *selection) byPattern() bool { return len(s.include) > 0 }

// matches applies include and exclude to a table's plain `db.table` name.
func (s *selection) matches(t tableName) bool {
	name := t.db + "." + t.table
	in := slices.ContainsFunc(s.include, func(re *regexp.Regexp) bool { return re.MatchString(name) })
	out := slices.ContainsFunc(s.exclude, func(re *regexp.Regexp) bool { return re.MatchString(name) })
	return in && !out
}

// names tells whether the fixed list names the table key.
func (s *selection) names(key string) bool {
	return slices.ContainsFunc(s.fixed, func(t tableName) bool { return t.key == key })
}

// canonical names the selection for logs and the default checkpoint key:
// the sorted table list, or the patterns as written.
func (s *selection) canonical() string {
	if !s.byPattern() {
		names := make([]string, len(s.fixed))
		for i, t := range s.fixed {
			names[i] = t.key
		}
		slices.Sort(names)
		return "tables " + strings.Join(names, ",")
	}
	return fmt.Sprintf("include %q exclude %q", patternTexts(s.include), patternTexts(s.exclude))
}

// patternTexts gives back the patterns as the user wrote them.
func patternTexts(res []*regexp.Regexp) []string {
	out := make([]string, len(res))
	for i, re := range res {
		out[i] = strings.TrimSuffix(strings.TrimPrefix(re.String(), anchorOpen), anchorClose)
	}
	return out
}

const anchorOpen, anchorClose = `^(?:`, `)$`

// compilePatterns anchors each pattern so that it must match the whole
// `db.table` name. A pattern is first checked on its own, so that one like
// "a)|(b" cannot change its meaning by closing the anchor's group. Errors
// name the field and the index.
func compilePatterns(field string, patterns []string) ([]*regexp.Regexp, error) {
	out := make([]*regexp.Regexp, 0, len(patterns))
	for i, p := range patterns {
		if _, err := regexp.Compile(p); err != nil {
			return nil, fmt.Errorf("field %s: pattern %d (%q) is not a valid regular expression: %v", field, i, p, err)
		}
		out = append(out, regexp.MustCompile(anchorOpen+p+anchorClose))
	}
	return out, nil
}
