package sqlengine

import (
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

type assignment struct {
	name   string
	value  any
	global bool
}

// set accepts Doris session variables GMS does not know (exec_mem_limit,
// query_timeout, ...) and remembers them; statements that only touch MySQL
// variables (autocommit, names, ...) are run by GMS. time_zone is always
// handled here: Doris validates and standardizes it, and its global value
// belongs to this engine, not to the process-wide GMS globals.
func set(s *Session, gctx *sql.Context, c *cursor) (*Result, bool, error) {
	assigns, ok := parseAssignments(c)
	if !ok {
		return nil, false, nil
	}
	allKnown, zone := true, false
	for i, a := range assigns {
		if isTimeZone(a.name) {
			v := toText(a.value)
			if strings.EqualFold(v, "default") {
				v = s.eng.defaultZone
			}
			std, err := standardizeTimeZone(v)
			if err != nil {
				return nil, true, err
			}
			assigns[i].value, zone = std, true
		}
		if _, _, known := sql.SystemVariables.GetGlobal(a.name); !known {
			allKnown = false
		}
	}
	if allKnown && !zone {
		return nil, false, nil
	}
	for _, a := range assigns {
		if isTimeZone(a.name) && a.global {
			// Doris's VariableMgr sets a GLOBAL variable for new sessions
			// and, since 2.0, for the current session too.
			s.eng.zone.set(a.value.(string))
		}
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

func isTimeZone(name string) bool { return strings.EqualFold(name, "time_zone") }

// parseAssignments parses `[SESSION|GLOBAL] name = literal, ...`; anything
// else (user variables, expressions, SET NAMES, SET TRANSACTION) is left to
// GMS by returning false.
func parseAssignments(c *cursor) ([]assignment, bool) {
	var out []assignment
	for {
		c.accept("session")
		global := c.accept("global")
		c.accept("local")
		if c.peek(0).IsPunct("@") {
			if !c.peek(1).IsPunct("@") {
				return nil, false
			}
			c.i += 2
			if c.peek(0).IsWord("session") || c.peek(0).IsWord("global") {
				if c.peek(1).IsPunct(".") {
					global = global || c.peek(0).IsWord("global")
					c.i += 2
				}
			}
		}
		name, ok := c.ident()
		if !ok || strings.EqualFold(name, "names") {
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
		out = append(out, assignment{name: name, value: v, global: global})
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
	switch t.Kind {
	case storage.TokString:
		if neg {
			return nil, false
		}
		return t.Str(), true
	case storage.TokNumber:
		text := t.Raw
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
	case storage.TokWord:
		if neg {
			return nil, false
		}
		return t.Raw, true
	}
	return nil, false
}
