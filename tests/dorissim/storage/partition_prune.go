package storage

import (
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// PlanTablets returns the tablets _query_plan lists for a statement: those
// of the partitions its WHERE clause can match, as Doris's planner prunes
// them (PruneOlapScanPartition with OneRangePartitionEvaluator /
// OneListPartitionEvaluator: each predicate on a partition column becomes
// a value range that is intersected with the partition's range or values).
// The simulator understands =, <, <=, >, >=, BETWEEN and IN against
// literals, combined with AND, OR and parentheses; any other predicate
// keeps every partition, so a partition that could hold a matching row is
// never dropped.
func (s *Store) PlanTablets(db, table, sql string) ([]int64, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	t, err := s.lookup(db, table)
	if err != nil {
		return nil, err
	}
	keep := make([]bool, len(t.parts))
	for i := range keep {
		keep[i] = true
	}
	if t.part.kind != "" {
		if toks, err := lexDDL(sql); err == nil {
			if where := whereTokens(toks); len(where) > 0 {
				pr := &pruner{t: t, s: &tokenStream{toks: append(where, Token{Kind: tokEOF})}}
				if m := pr.or(); pr.s.peek().Kind == tokEOF {
					keep = m
				}
			}
		}
	}
	var ids []int64
	for i, p := range t.parts {
		if keep[i] {
			for _, tb := range p.tablets {
				ids = append(ids, tb.id)
			}
		}
	}
	return ids, nil
}

// whereTokens is the top-level WHERE clause of a single-table SELECT, up to
// GROUP/ORDER/LIMIT.
func whereTokens(toks []Token) []Token {
	depth, start := 0, -1
	for i, tk := range toks {
		switch {
		case tk.Kind == TokPunct && tk.Text() == "(":
			depth++
		case tk.Kind == TokPunct && tk.Text() == ")":
			depth--
		case depth != 0 || tk.Kind != TokWord:
		case start < 0 && strings.EqualFold(tk.Text(), "where"):
			start = i + 1
		case start >= 0 && (strings.EqualFold(tk.Text(), "group") || strings.EqualFold(tk.Text(), "order") ||
			strings.EqualFold(tk.Text(), "limit")):
			return toks[start:i]
		}
		if tk.Kind == tokEOF && start >= 0 {
			return toks[start:i]
		}
	}
	return nil
}

// pruner evaluates a WHERE clause to the partitions it may match.
type pruner struct {
	t *table
	s *tokenStream
}

func (p *pruner) all(v bool) []bool {
	m := make([]bool, len(p.t.parts))
	for i := range m {
		m[i] = v
	}
	return m
}

func (p *pruner) or() []bool {
	m := p.and()
	for p.s.acceptKeywords("or") {
		r := p.and()
		for i := range m {
			m[i] = m[i] || r[i]
		}
	}
	return m
}

func (p *pruner) and() []bool {
	m := p.primary()
	for p.s.acceptKeywords("and") {
		r := p.primary()
		for i := range m {
			m[i] = m[i] && r[i]
		}
	}
	return m
}

// primary is a parenthesised clause or one predicate; what it does not
// understand matches every partition.
func (p *pruner) primary() []bool {
	start := p.s.pos
	if p.s.acceptPunct("(") {
		m := p.or()
		if p.s.acceptPunct(")") {
			return m
		}
		p.s.pos = start
	}
	if m, ok := p.predicate(); ok && p.atPredicateEnd() {
		return m
	}
	p.s.pos = start
	p.skipPredicate()
	return p.all(true)
}

func (p *pruner) atPredicateEnd() bool {
	t := p.s.peek()
	return t.Kind == tokEOF || (t.Kind == TokPunct && t.Text() == ")") ||
		(t.Kind == TokWord && (strings.EqualFold(t.Text(), "and") || strings.EqualFold(t.Text(), "or")))
}

// skipPredicate moves past one predicate: up to a top-level AND or OR (the
// AND of a BETWEEN belongs to it) or the closing parenthesis.
func (p *pruner) skipPredicate() {
	depth, between := 0, false
	for {
		t := p.s.peek()
		switch {
		case t.Kind == tokEOF:
			return
		case t.Kind == TokPunct && t.Text() == "(":
			depth++
		case t.Kind == TokPunct && t.Text() == ")":
			if depth == 0 {
				return
			}
			depth--
		case depth > 0 || t.Kind != TokWord:
		case strings.EqualFold(t.Text(), "between"):
			between = true
		case strings.EqualFold(t.Text(), "and") && between:
			between = false
		case strings.EqualFold(t.Text(), "and"), strings.EqualFold(t.Text(), "or"):
			return
		}
		p.s.next()
	}
}

// predicate parses `col op lit`, `lit op col`, `col BETWEEN lit AND lit` or
// `col IN (lit, ...)` on a partition column.
func (p *pruner) predicate() ([]bool, bool) {
	if col, ok := p.column(); ok {
		switch {
		case p.s.acceptKeywords("between"):
			lo, ok1 := p.literal(col)
			and := p.s.acceptKeywords("and")
			hi, ok2 := p.literal(col)
			if !ok1 || !and || !ok2 {
				return nil, false
			}
			return p.match(col, func(r valueRange) bool { return r.overlaps(lo, true, hi, true) }), true
		case p.s.acceptKeywords("in"):
			return p.in(col)
		}
		op, ok := p.operator()
		if !ok {
			return nil, false
		}
		v, ok := p.literal(col)
		if !ok {
			return nil, false
		}
		return p.compare(col, op, v)
	}
	// literal op column: look ahead for the column after the operator.
	save := p.s.pos
	lit := p.s.next()
	op, ok := p.operator()
	if !ok || (lit.Kind != TokString && lit.Kind != TokNumber) {
		return nil, false
	}
	col, ok := p.column()
	if !ok {
		return nil, false
	}
	end := p.s.pos
	p.s.pos = save
	v, ok := p.literal(col)
	p.s.pos = end
	if !ok {
		return nil, false
	}
	return p.compare(col, flipOp[op], v)
}

var flipOp = map[string]string{"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}

func (p *pruner) in(col int) ([]bool, bool) {
	if !p.s.acceptPunct("(") {
		return nil, false
	}
	m := p.all(false)
	for {
		v, ok := p.literal(col)
		if !ok {
			return nil, false
		}
		r := p.match(col, func(r valueRange) bool { return r.overlaps(v, true, v, true) })
		for i := range m {
			m[i] = m[i] || r[i]
		}
		if p.s.acceptPunct(")") {
			return m, true
		}
		if !p.s.acceptPunct(",") {
			return nil, false
		}
	}
}

func (p *pruner) compare(col int, op string, v any) ([]bool, bool) {
	var f func(valueRange) bool
	switch op {
	case "=":
		f = func(r valueRange) bool { return r.overlaps(v, true, v, true) }
	case "<":
		f = func(r valueRange) bool { return r.overlaps(nil, false, v, false) }
	case "<=":
		f = func(r valueRange) bool { return r.overlaps(nil, false, v, true) }
	case ">":
		f = func(r valueRange) bool { return r.overlaps(v, false, nil, false) }
	case ">=":
		f = func(r valueRange) bool { return r.overlaps(v, true, nil, false) }
	default:
		return nil, false
	}
	return p.match(col, f), true
}

// column reads a possibly qualified column reference and returns its
// position among the partition columns it prunes on: any column of a LIST
// partition, only the first of a RANGE one (later columns of a range bound
// do not order the rows).
func (p *pruner) column() (int, bool) {
	start := p.s.pos
	name, err := p.s.ident()
	if err != nil || p.s.peek().Kind == TokPunct && p.s.peek().Text() == "(" {
		p.s.pos = start
		return 0, false
	}
	for p.s.isPunct(".") {
		p.s.next()
		if name, err = p.s.ident(); err != nil {
			p.s.pos = start
			return 0, false
		}
	}
	for i, c := range p.t.part.cols {
		if strings.EqualFold(p.t.def.Columns[c].Name, name) && (i == 0 || p.t.part.kind == PartitionList) {
			return i, true
		}
	}
	p.s.pos = start
	return 0, false
}

// operator joins the one-character punctuation the lexer emits.
func (p *pruner) operator() (string, bool) {
	t := p.s.peek()
	if t.Kind != TokPunct || !strings.Contains("=<>!", t.Text()) {
		return "", false
	}
	p.s.next()
	op := t.Text()
	if n := p.s.peek(); n.Kind == TokPunct && n.Start == t.Start+1 && (n.Text() == "=" || (op == "<" && n.Text() == ">")) {
		p.s.next()
		op += n.Text()
	}
	return op, true
}

// literal reads a string or number literal as the partition column's value.
// A literal the column type does not hold exactly (a time on a DATE column,
// more fraction digits than the scale) is not used: Doris compares those in
// a wider type, which the simulator does not model.
func (p *pruner) literal(col int) (any, bool) {
	text, neg := "", p.s.acceptPunct("-")
	switch t := p.s.next(); t.Kind {
	case TokString:
		if neg {
			return nil, false
		}
		text = t.Text()
	case TokNumber:
		text = t.Text()
		if p.s.isPunct(".") && p.s.toks[p.s.pos+1].Kind == TokNumber {
			p.s.next()
			text += "." + p.s.next().Text()
		}
	default:
		return nil, false
	}
	if neg {
		text = "-" + text
	}
	typ := p.t.def.Columns[p.t.part.cols[col]].Type
	v, err := ParseValue(typ, text)
	if err != nil || !exactLiteral(typ, text, v) {
		return nil, false
	}
	return v, true
}

func exactLiteral(typ Type, text string, v any) bool {
	switch typ.Kind {
	case Date, DateTime:
		full, err := parseFractional(strings.TrimSpace(text))
		if err != nil {
			full, err = time.ParseInLocation(dateLayout, strings.TrimSpace(text), time.UTC)
		}
		return err == nil && full.Equal(v.(time.Time))
	case Decimal:
		d, err := decimal.NewFromString(strings.TrimSpace(text))
		return err == nil && d.Equal(v.(decimal.Decimal))
	}
	return true
}

// valueRange is what one partition holds of one partition column: its
// range on the first column of a RANGE partition, or one LIST value. nil
// bounds are unbounded.
type valueRange struct {
	lo, hi       any
	hasLo, hasHi bool
	hiIncl       bool
}

// overlaps reports whether the partition may hold a value in the interval
// from lo to hi (nil: unbounded; incl: closed at that end).
func (r valueRange) overlaps(lo any, loIncl bool, hi any, hiIncl bool) bool {
	if hi != nil && r.hasLo {
		if c := compareValues(r.lo, hi); c > 0 || (c == 0 && !hiIncl) {
			return false
		}
	}
	if lo != nil && r.hasHi {
		if c := compareValues(lo, r.hi); c > 0 || (c == 0 && !(loIncl && r.hiIncl)) {
			return false
		}
	}
	return true
}

// match applies f to every partition's value ranges on column col.
func (p *pruner) match(col int, f func(valueRange) bool) []bool {
	m := make([]bool, len(p.t.parts))
	for i, part := range p.t.parts {
		for _, r := range ranges(p.t, part, col) {
			if f(r) {
				m[i] = true
				break
			}
		}
	}
	return m
}

func ranges(t *table, p *partition, col int) []valueRange {
	if t.part.kind == PartitionList {
		out := make([]valueRange, 0, len(p.values))
		for _, tuple := range p.values {
			if tuple[col] != nil {
				out = append(out, valueRange{lo: tuple[col], hi: tuple[col], hasLo: true, hasHi: true, hiIncl: true})
			}
		}
		return out
	}
	r := valueRange{}
	if !p.lowerMin && len(p.lower) > 0 && p.lower[0] != nil {
		r.lo, r.hasLo = p.lower[0], true
	}
	if !p.upperMax && len(p.upper) > 0 && p.upper[0] != nil {
		r.hi, r.hasHi = p.upper[0], true
		// [(1, 5), (3, 2)) holds first-column values up to 3 itself.
		r.hiIncl = len(t.part.cols) > 1
	}
	return []valueRange{r}
}
