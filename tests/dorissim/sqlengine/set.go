package sqlengine

import (
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
)

type assignment struct {
	name  string
	value any
}

// set accepts Doris session variables GMS does not know (exec_mem_limit,
// query_timeout, ...) and remembers them; statements that only touch MySQL
// variables (time_zone, autocommit, names, ...) are run by GMS.
func (s *Session) set(gctx *sql.Context, c *cursor) (*Result, bool, error) {
	assigns, ok := parseAssignments(c)
	if !ok {
		return nil, false, nil
	}
	allKnown := true
	for _, a := range assigns {
		if strings.EqualFold(a.name, "time_zone") {
			// Doris rejects unknown zones; GMS would store any string.
			if _, err := parseTimeZone(toText(a.value)); err != nil {
				return nil, true, err
			}
		}
		if _, _, known := sql.SystemVariables.GetGlobal(a.name); !known {
			allKnown = false
		}
	}
	if allKnown {
		return nil, false, nil
	}
	for _, a := range assigns {
		if _, _, known := sql.SystemVariables.GetGlobal(a.name); known {
			if err := gctx.SetSessionVariable(gctx, a.name, a.value); err != nil {
				return nil, true, err
			}
			continue
		}
		s.gs.dorisVars[strings.ToLower(a.name)] = toText(a.value)
	}
	return okResult(0), true, nil
}

// parseAssignments parses `[SESSION|GLOBAL] name = literal, ...`; anything
// else (user variables, expressions, SET NAMES, SET TRANSACTION) is left to
// GMS by returning false.
func parseAssignments(c *cursor) ([]assignment, bool) {
	var out []assignment
	for {
		c.accept("session")
		c.accept("global")
		c.accept("local")
		if isPunct(c.peek(0), "@") {
			if !isPunct(c.peek(1), "@") {
				return nil, false
			}
			c.i += 2
			if isWord(c.peek(0), "session") || isWord(c.peek(0), "global") {
				if isPunct(c.peek(1), ".") {
					c.i += 2
				}
			}
		}
		name, ok := c.ident()
		if !ok || isWord(token{kind: tkWord, raw: name}, "names") {
			return nil, false
		}
		if !c.acceptPunct("=") {
			if !(c.acceptPunct(":") && c.acceptPunct("=")) {
				return nil, false
			}
		}
		v, ok := literalValue(c)
		if !ok {
			return nil, false
		}
		out = append(out, assignment{name: name, value: v})
		if c.done() {
			return out, true
		}
		if !c.acceptPunct(",") {
			return nil, false
		}
	}
}

// literalValue reads a string, number or bare word value.
func literalValue(c *cursor) (any, bool) {
	neg := c.acceptPunct("-")
	t := c.peek(0)
	c.i++
	switch t.kind {
	case tkString:
		if neg {
			return nil, false
		}
		return stringValue(t), true
	case tkNumber:
		text := t.raw
		if neg {
			text = "-" + text
		}
		if n, err := strconv.ParseInt(text, 10, 64); err == nil {
			return n, true
		}
		if f, err := strconv.ParseFloat(text, 64); err == nil {
			return f, true
		}
		return nil, false
	case tkWord:
		if neg {
			return nil, false
		}
		return t.raw, true
	}
	return nil, false
}
