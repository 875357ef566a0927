package doris

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

const defaultBinlogTTLSeconds = 86400

// TableProperties is what the client needs to know from SHOW CREATE TABLE.
type TableProperties struct {
	KeysType            string // DUP_KEYS, UNIQUE_KEYS or AGG_KEYS
	KeyColumns          []string
	Columns             []ColumnDef
	DatetimePrecision   map[string]int  // DATETIME/DATETIMEV2 columns -> fractional digits
	Nullable            map[string]bool // column -> nullable: false only when declared NOT NULL
	Properties          map[string]string
	BinlogEnabled       bool
	BinlogFormat        string // as written, e.g. ROW
	NeedHistoricalValue bool
	TTLSeconds          int64  // binlog.ttl_seconds, 86400 when absent
	MergeOnWrite        bool   // UNIQUE KEY tables unless disabled
	Comment             string // the table's COMMENT, "" when none
}

// ColumnDef is a column as declared in the DDL.
type ColumnDef struct {
	Name    string
	Type    string // as written, whitespace removed, e.g. decimal(10,2), datetime(3)
	Comment string // the column's COMMENT, "" when none
}

// FetchTableProperties runs SHOW CREATE TABLE and parses the DDL it returns.
func FetchTableProperties(ctx context.Context, c *Client, db, table string) (*TableProperties, error) {
	res, err := Statement(ctx, c, "SHOW CREATE TABLE "+QualifiedTable(db, table))
	if err != nil {
		return nil, fmt.Errorf("show create table %s.%s: %w", db, table, err)
	}
	ddl, err := CreateTableText(res)
	if err != nil {
		return nil, fmt.Errorf("show create table %s.%s: %w", db, table, err)
	}
	props, err := ParseShowCreateTable(ddl)
	if err != nil {
		return nil, fmt.Errorf("show create table %s.%s: %w", db, table, err)
	}
	return props, nil
}

// CreateTableText takes the DDL cell ("Create Table", else column 1) of a
// SHOW CREATE TABLE result.
func CreateTableText(res *StatementResult) (string, error) {
	col := res.ColumnIndex("Create Table")
	if col < 0 {
		col = 1
	}
	text, ok := res.CellText(0, col)
	if !ok {
		return "", errors.New("SHOW CREATE TABLE result has no Create Table text")
	}
	return text, nil
}

// ParseShowCreateTable parses Doris CREATE TABLE text as printed by SHOW
// CREATE TABLE: the column list, the key model and PROPERTIES.
func ParseShowCreateTable(ddl string) (*TableProperties, error) {
	toks, err := scanDDL(ddl)
	if err != nil {
		return nil, fmt.Errorf("parse CREATE TABLE: %w", err)
	}
	if len(toks) < 2 || !isWord(toks[0], "CREATE") {
		return nil, errors.New("parse CREATE TABLE: text does not start with CREATE")
	}
	open := indexKind(toks, '(', 0)
	end := -1
	if open >= 0 {
		end = matchClose(toks, open, false)
	}
	if end < 0 {
		return nil, errors.New("parse CREATE TABLE: missing column list")
	}
	p := &TableProperties{DatetimePrecision: map[string]int{}, Nullable: map[string]bool{}, KeysType: "DUP_KEYS"}
	if err := p.parseColumns(toks[open+1 : end]); err != nil {
		return nil, err
	}
	tail := toks[end+1:]
	p.parseKeys(tail)
	p.Comment = tableComment(tail)
	if p.Properties, err = parseProperties(tail); err != nil {
		return nil, err
	}
	if err := p.applyProperties(); err != nil {
		return nil, err
	}
	return p, nil
}

func indexKind(toks []token, kind byte, from int) int {
	for i := from; i < len(toks); i++ {
		if toks[i].kind == kind {
			return i
		}
	}
	return -1
}

func (p *TableProperties) parseColumns(list []token) error {
	for _, item := range splitTopLevel(list) {
		if len(item) == 0 {
			return errors.New("parse CREATE TABLE: empty column definition")
		}
		if item[0].kind == 'w' && isIndexKeyword(item[0].text) {
			continue
		}
		if (item[0].kind != 'i' && item[0].kind != 'w') || len(item) < 2 || item[1].kind != 'w' {
			return fmt.Errorf("parse CREATE TABLE: malformed column definition near %q", item[0].text)
		}
		typ, err := columnType(item[1:])
		if err != nil {
			return fmt.Errorf("parse CREATE TABLE: column %q: %w", item[0].text, err)
		}
		name := item[0].text
		p.Columns = append(p.Columns, ColumnDef{Name: name, Type: typ, Comment: columnComment(item[1:])})
		p.Nullable[name] = !declaredNotNull(item[1:])
		if prec, ok := datetimePrecision(item[1:]); ok {
			p.DatetimePrecision[name] = prec
		}
	}
	if len(p.Columns) == 0 {
		return errors.New("parse CREATE TABLE: no columns")
	}
	return nil
}

// declaredNotNull finds NOT NULL among a column's attributes. Nested types
// cannot hide one: their arguments are inside <...>, which the type took.
func declaredNotNull(toks []token) bool {
	return topLevelPair(toks, func(a, b token) bool { return isWord(a, "NOT") && isWord(b, "NULL") }) >= 0
}

// columnComment finds COMMENT '...' among a column's attributes, outside
// its type's arguments.
func columnComment(toks []token) string {
	if i := topLevelPair(toks, func(a, b token) bool { return isWord(a, "COMMENT") && b.kind == 's' }); i >= 0 {
		return toks[i+1].text
	}
	return ""
}

// topLevelPair is the index of the first two adjacent tokens outside any
// <...> or (...) that match, or -1.
func topLevelPair(toks []token, match func(a, b token) bool) int {
	depth := 0
	for i, t := range toks {
		switch t.kind {
		case '<', '(':
			depth++
		case '>', ')':
			depth--
		}
		if depth == 0 && i+1 < len(toks) && match(t, toks[i+1]) {
			return i
		}
	}
	return -1
}

// tableComment finds the table's COMMENT '...' after the column list: the
// first top-level one, before PARTITION, DISTRIBUTED or PROPERTIES, whose
// parentheses hold no comment of the table.
func tableComment(tail []token) string {
	depth := 0
	for i, t := range tail {
		switch {
		case t.kind == '(' || t.kind == '[':
			depth++
		case t.kind == ')':
			depth--
		case depth == 0 && isWord(t, "COMMENT") && i+1 < len(tail) && tail[i+1].kind == 's':
			return tail[i+1].text
		}
	}
	return ""
}

func isIndexKeyword(w string) bool {
	switch strings.ToUpper(w) {
	case "INDEX", "KEY", "PRIMARY", "UNIQUE", "CONSTRAINT":
		return true
	}
	return false
}

// columnType renders the type word plus its parenthesized or angled
// arguments, without whitespace.
func columnType(toks []token) (string, error) {
	n := 1
	if len(toks) > 1 && (toks[1].kind == '(' || toks[1].kind == '<') {
		end := matchClose(toks, 1, true)
		if end < 0 {
			return "", errors.New("unbalanced type arguments")
		}
		n = end + 1
	}
	var b strings.Builder
	for _, t := range toks[:n] {
		switch t.kind {
		case 'i':
			b.WriteString(QuoteIdent(t.text))
		case 's':
			b.WriteString(QuoteLiteral(t.text))
		default:
			b.WriteString(t.text)
		}
	}
	return b.String(), nil
}

// datetimePrecision reads DATETIME[(p)] / DATETIMEV2[(p)]; no argument means 0.
func datetimePrecision(toks []token) (int, bool) {
	if !isWord(toks[0], "DATETIME") && !isWord(toks[0], "DATETIMEV2") {
		return 0, false
	}
	if len(toks) < 4 || toks[1].kind != '(' || toks[3].kind != ')' {
		return 0, true
	}
	p, err := strconv.Atoi(toks[2].text)
	if err != nil || p < 0 || p > 6 {
		return 0, true
	}
	return p, true
}

func (p *TableProperties) parseKeys(tail []token) {
	models := map[string]string{"UNIQUE": "UNIQUE_KEYS", "DUPLICATE": "DUP_KEYS", "AGGREGATE": "AGG_KEYS"}
	for i := 0; i+2 < len(tail); i++ {
		model, ok := models[strings.ToUpper(tail[i].text)]
		if tail[i].kind != 'w' || !ok || !isWord(tail[i+1], "KEY") || tail[i+2].kind != '(' {
			continue
		}
		p.KeysType = model
		end := matchClose(tail, i+2, false)
		if end < 0 {
			return
		}
		for _, t := range tail[i+3 : end] {
			if t.kind == 'i' || t.kind == 'w' {
				p.KeyColumns = append(p.KeyColumns, t.text)
			}
		}
		return
	}
}

// parseProperties reads the last top-level PROPERTIES ("k" = "v", ...).
func parseProperties(tail []token) (map[string]string, error) {
	props := map[string]string{}
	start, depth := -1, 0
	for i, t := range tail {
		switch {
		// Doris prints RANGE partitions as half-open [('lo'), ('hi')): the
		// '[' opens the group that the last ')' closes.
		case t.kind == '(' || t.kind == '[':
			depth++
		case t.kind == ')':
			depth--
		case depth == 0 && isWord(t, "PROPERTIES") && i+1 < len(tail) && tail[i+1].kind == '(':
			start = i + 1
		}
	}
	if start < 0 {
		return props, nil
	}
	end := matchClose(tail, start, false)
	if end < 0 {
		return nil, errors.New("parse CREATE TABLE: unbalanced PROPERTIES")
	}
	for _, kv := range splitTopLevel(tail[start+1 : end]) {
		if len(kv) == 0 {
			continue
		}
		if len(kv) != 3 || kv[0].kind != 's' || kv[1].kind != '=' || kv[2].kind != 's' {
			return nil, errors.New(`parse CREATE TABLE: PROPERTIES entries must be "key" = "value"`)
		}
		props[kv[0].text] = kv[2].text
	}
	return props, nil
}

func (p *TableProperties) applyProperties() error {
	p.BinlogEnabled = strings.EqualFold(p.Properties["binlog.enable"], "true")
	p.BinlogFormat = p.Properties["binlog.format"]
	p.NeedHistoricalValue = strings.EqualFold(p.Properties["binlog.need_historical_value"], "true")
	p.TTLSeconds = defaultBinlogTTLSeconds
	if v, ok := p.Properties["binlog.ttl_seconds"]; ok {
		ttl, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || ttl <= 0 {
			return fmt.Errorf("parse CREATE TABLE: invalid binlog.ttl_seconds %q", v)
		}
		p.TTLSeconds = ttl
	}
	p.MergeOnWrite = p.KeysType == "UNIQUE_KEYS" &&
		!strings.EqualFold(p.Properties["enable_unique_key_merge_on_write"], "false")
	return nil
}
