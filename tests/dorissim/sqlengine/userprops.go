package sqlengine

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// propMaxUserConnections is the one user property the simulator keeps.
const propMaxUserConnections = "max_user_connections"

// otherUserProperties are the keys Doris's SetUserPropertyVarOp accepts
// besides max_user_connections (UserProperty.ADVANCED_PROPERTIES and
// COMMON_PROPERTIES); a name ending in "." is a prefix.
var otherUserProperties = []string{
	"max_query_instances", "parallel_fragment_exec_instance_num", "sql_block_rules", "cpu_resource_limit",
	"resource_tags", "exec_mem_limit", "query_timeout", "insert_timeout", "resource.",
	"quota.", "default_init_catalog", "default_workload_group", "default_cloud_cluster", "default_compute_group",
}

// setProperty runs `SET PROPERTY [FOR 'user'] 'key' = 'value' [, ...]`
// (the cursor is past SET PROPERTY). Only max_user_connections is kept: it
// sets the user's limit in the connection pool, for the user's next
// connections of either protocol. The session's user is root-like, so the
// ADMIN privilege Doris requires is not checked. Every item is validated
// before any is applied, as UserProperty.update does.
func setProperty(s *Session, c *cursor) (*Result, error) {
	user := s.user
	if c.accept("for") {
		u, ok := c.stringLit()
		if !ok {
			if u, ok = c.ident(); !ok {
				return nil, errSyntax("Syntax error in SET PROPERTY near %s", c.near())
			}
		}
		user = u
	}
	type item struct{ key, value string }
	var items []item
	for {
		key, ok := propertyWord(c)
		if !ok || !c.acceptPunct("=") {
			return nil, errSyntax("Syntax error in SET PROPERTY near %s", c.near())
		}
		value, ok := propertyWord(c)
		if !ok {
			return nil, errSyntax("Syntax error in SET PROPERTY near %s", c.near())
		}
		items = append(items, item{key, value})
		if c.done() {
			break
		}
		if !c.acceptPunct(",") {
			return nil, errSyntax("Syntax error in SET PROPERTY near %s", c.near())
		}
	}
	var maxConn int64
	setMax := false
	for _, it := range items {
		switch key := strings.ToLower(it.key); {
		case key == propMaxUserConnections:
			n, err := strconv.ParseInt(it.value, 10, 64)
			if err != nil {
				return nil, ddlError(propMaxUserConnections + " is not number")
			}
			maxConn, setMax = n, true
		case isOtherUserProperty(key):
			return nil, ddlError(fmt.Sprintf("dorissim keeps only the user property %s; %s is not simulated", propMaxUserConnections, it.key))
		default:
			return nil, ddlError("Unknown property key: " + it.key)
		}
	}
	// UserPropertyMgr.updateUserProperty: the simulator has one account.
	if user != s.eng.cfg.User {
		return nil, ddlError("Unknown user(" + user + ")")
	}
	if setMax {
		if err := s.eng.cfg.Pool.SetUserMaxConnections(user, maxConn); err != nil {
			return nil, ddlError(err.Error())
		}
	}
	return okResult(0), nil
}

// propertyWord reads a key or value: a string, a number or a bare word.
func propertyWord(c *cursor) (string, bool) {
	if v, ok := c.stringLit(); ok {
		return v, true
	}
	t := c.peek(0)
	if t.Kind == storage.TokNumber || t.Kind == storage.TokWord {
		c.i++
		return t.Raw, true
	}
	return "", false
}

func isOtherUserProperty(key string) bool {
	for _, k := range otherUserProperties {
		if key == k || (strings.HasSuffix(k, ".") && strings.HasPrefix(key, k)) {
			return true
		}
	}
	return false
}

// ddlError is a Doris DdlException over MySQL: ERR_UNKNOWN_ERROR with the
// message, which the wire renders as `errCode = 2, detailMessage = ...`.
func ddlError(msg string) error {
	return &storage.Error{Code: storage.CodeGeneric, Message: msg}
}
