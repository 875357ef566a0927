package sqlengine

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// dorisFunctions override GMS built-ins whose results differ from Doris.
// The time functions all work in the session time_zone with Doris's rules
// at DST transitions (timefuncs.go); GMS converts zones by re-reading wall
// clocks, which is off by an hour next to a transition, and takes NOW()'s
// zone from the host at the real current time.
func dorisFunctions() []sql.Function {
	return []sql.Function{
		sql.FunctionN{Name: "from_unixtime", Fn: newFromUnixtime},
		sql.FunctionN{Name: "unix_timestamp", Fn: newUnixTimestamp},
		sql.Function3{Name: "convert_tz", Fn: newConvertTz},
		sql.FunctionN{Name: "now", Fn: nowNamed("now")},
		sql.FunctionN{Name: "current_timestamp", Fn: nowNamed("current_timestamp")},
		sql.FunctionN{Name: "localtime", Fn: nowNamed("localtime")},
		sql.FunctionN{Name: "localtimestamp", Fn: nowNamed("localtimestamp")},
		sql.FunctionN{Name: "sysdate", Fn: nowNamed("sysdate")},
		sql.NewFunction0("curdate", curDateNamed("curdate")),
		sql.NewFunction0("current_date", curDateNamed("current_date")),
		sql.Function1{Name: globalVarFuncName, Fn: newGlobalVar},
	}
}

// isConstant reports whether e reads no column. The FE folds such calls
// itself (Java rules); everything else the BE evaluates (cctz rules).
func isConstant(e sql.Expression) bool {
	constant := true
	transform.InspectExpr(e, func(e sql.Expression) bool {
		if _, ok := e.(*expression.GetField); ok {
			constant = false
			return true
		}
		return false
	})
	return constant
}
