package doris

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

const clusterIDColumn = "ClusterId"

// ClusterID reads the identity of the cluster c talks to: the ClusterId
// column of `show frontends`. Doris draws it once, at random, when a
// cluster's first FE starts (Storage.newClusterID, a positive int32 kept in
// the FE's meta/image/VERSION), and every FE of the cluster reports the
// same one (FrontendsProcNode prints Env.getClusterId() in every row).
func ClusterID(ctx context.Context, c *Client) (string, error) {
	res, err := Statement(ctx, c, "show frontends")
	if err != nil {
		return "", fmt.Errorf("reading the Doris cluster id with show frontends: %w", err)
	}
	return ClusterIDFromFrontends(res)
}

// ClusterIDFromFrontends picks the cluster id from a `show frontends`
// result. Every row must carry the same positive integer: rows that
// disagree would make the identity a guess, so they are an error.
func ClusterIDFromFrontends(res *StatementResult) (string, error) {
	col := res.ColumnIndex(clusterIDColumn)
	if col < 0 {
		return "", fmt.Errorf("show frontends has no %s column", clusterIDColumn)
	}
	if len(res.Rows) == 0 {
		return "", fmt.Errorf("show frontends returned no row, so no %s", clusterIDColumn)
	}
	id := ""
	for row := range res.Rows {
		text, ok := res.CellText(row, col)
		text = strings.TrimSpace(text)
		n, err := strconv.ParseInt(text, 10, 32)
		if !ok || err != nil || n <= 0 {
			return "", fmt.Errorf("show frontends row %d: %s must be a positive integer; got %q", row+1, clusterIDColumn, text)
		}
		text = strconv.FormatInt(n, 10)
		if id != "" && text != id {
			return "", fmt.Errorf("show frontends rows disagree on %s (%s and %s): the FEs do not belong to one cluster", clusterIDColumn, id, text)
		}
		id = text
	}
	return id, nil
}
