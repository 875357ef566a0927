package doris

import (
	"context"
	"errors"
	"strconv"
	"strings"
)

const flightPortColumn = "ArrowFlightSqlPort"

// FlightSQLPort discovers the FE's Arrow Flight SQL port with `show frontends`.
func FlightSQLPort(ctx context.Context, c *Client) (int, error) {
	res, err := Statement(ctx, c, "show frontends")
	if err != nil {
		return 0, err
	}
	return FlightSQLPortFromFrontends(res, c.Host())
}

// FlightSQLPortFromFrontends picks ArrowFlightSqlPort from a `show frontends`
// result: from the row whose Host is host when there is one (the FE this
// client talks to), else from row 0 as the reference connector does.
func FlightSQLPortFromFrontends(res *StatementResult, host string) (int, error) {
	col := res.ColumnIndex(flightPortColumn)
	if col < 0 {
		return 0, errors.New("Doris statement result is missing ArrowFlightSqlPort")
	}
	row := 0
	if hostCol := res.ColumnIndex("Host"); hostCol >= 0 && host != "" {
		for i := range res.Rows {
			if h, ok := res.CellText(i, hostCol); ok && strings.EqualFold(h, host) {
				row = i
				break
			}
		}
	}
	text, ok := res.CellText(row, col)
	if !ok {
		return 0, errors.New("ArrowFlightSqlPort not found")
	}
	port, err := strconv.Atoi(strings.TrimSpace(text))
	if err != nil || port < 1 || port > 65535 {
		return 0, errors.New("ArrowFlightSqlPort not found")
	}
	return port, nil
}
