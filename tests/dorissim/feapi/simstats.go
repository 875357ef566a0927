package feapi

import (
	"fmt"
	"net/http"
)

// stats answers the simulator's request counters (GET /api/_sim/stats).
func stats(a *api, w http.ResponseWriter, r *http.Request, _ string) {
	if a.cfg.Stats == nil {
		fail(w, fmt.Errorf("request statistics are not available"))
		return
	}
	ok(w, a.cfg.Stats())
}
