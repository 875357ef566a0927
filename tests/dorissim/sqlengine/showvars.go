package sqlengine

import (
	"fmt"
	"io"

	"github.com/dolthub/go-mysql-server/sql"
)

// showGlobalVariables runs SHOW GLOBAL VARIABLES on GMS and shows this
// engine's global time_zone in it. GMS keeps MySQL's process-wide SYSTEM
// there, while a Doris FE's global time_zone is a zone ID (HostTimeZone, or
// what SET GLOBAL time_zone stored), the value @@global.time_zone reads.
func showGlobalVariables(s *Session, gctx *sql.Context, body string) (*Result, error) {
	res, err := s.runGMS(gctx, body)
	if err != nil {
		return nil, err
	}
	defer res.closeLocked()
	var rows [][]any
	for {
		row, err := res.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(row) == 2 && isTimeZone(fmt.Sprint(row[0])) {
			row[1] = s.eng.zone.get()
		}
		rows = append(rows, row)
	}
	if err := res.closeLocked(); err != nil {
		return nil, err
	}
	return staticResult(res.Columns, rows), nil
}
