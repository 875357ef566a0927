package flight

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// QueryInt64 runs a query that returns one integer, such as a COUNT(*),
// and returns it. A result of another shape, a NULL or a type that is not
// an integer is an error: the caller decides on the number.
func QueryInt64(ctx context.Context, c *Client, sql string) (int64, error) {
	var (
		n     int64
		found bool
	)
	err := c.Query(ctx, sql, func(rec arrow.RecordBatch) error {
		if rec.NumRows() == 0 {
			return nil
		}
		if found || rec.NumRows() != 1 || rec.NumCols() != 1 {
			return fmt.Errorf("want one row of one column, got a batch of %d row(s) of %d column(s)", rec.NumRows(), rec.NumCols())
		}
		col := rec.Column(0)
		if col.IsNull(0) {
			return errors.New("the value is NULL")
		}
		switch a := col.(type) {
		case *array.Int64:
			n = a.Value(0)
		case *array.Int32:
			n = int64(a.Value(0))
		default:
			return fmt.Errorf("the value came back as %s, not an integer", col.DataType())
		}
		found = true
		return nil
	})
	if err == nil && !found {
		err = errors.New("no row")
	}
	if err != nil {
		return 0, fmt.Errorf("doris flight sql at %s: %s: %w", c.Addr(), sql, err)
	}
	return n, nil
}
