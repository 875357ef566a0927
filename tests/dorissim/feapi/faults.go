package feapi

import (
	"fmt"
	"io"
	"net/http"
)

// setFaults adds faults (POST /api/_sim/faults, simulator only).
func setFaults(a *api, w http.ResponseWriter, r *http.Request, _ string) {
	if a.cfg.Hooks == nil {
		fail(w, fmt.Errorf("fault injection is not available"))
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		fail(w, fmt.Errorf("read faults body: %w", err))
		return
	}
	if err := a.cfg.Hooks.ApplyFaults(body); err != nil {
		writeJSON(w, http.StatusBadRequest, envelope{Msg: err.Error(), Code: 400, Data: err.Error()})
		return
	}
	ok(w, nil)
}

// clearFaults removes every fault (DELETE /api/_sim/faults).
func clearFaults(a *api, w http.ResponseWriter, r *http.Request, _ string) {
	if a.cfg.Hooks != nil {
		a.cfg.Hooks.ClearFaults()
	}
	ok(w, nil)
}
