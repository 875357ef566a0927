package feapi

import (
	"net/http"
)

type tsoData struct {
	WindowEndPhysicalTime    int64 `json:"window_end_physical_time"`
	CurrentTSO               int64 `json:"current_tso"`
	CurrentTSOPhysicalTime   int64 `json:"current_tso_physical_time"`
	CurrentTSOLogicalCounter int64 `json:"current_tso_logical_counter"`
}

// tso answers GET /api/tso without advancing the TSO.
func tso(a *api, w http.ResponseWriter, r *http.Request, _ string) {
	if a.cfg.Hooks != nil && a.cfg.Hooks.TakeTSOError() {
		writeJSON(w, http.StatusInternalServerError, envelope{Msg: "TSO service is not ready (simulated fault)", Code: 500, Data: nil})
		return
	}
	t := a.cfg.Backend.CurrentTSO()
	ok(w, tsoData{
		WindowEndPhysicalTime:    t.PhysicalMs,
		CurrentTSO:               t.Value,
		CurrentTSOPhysicalTime:   t.PhysicalMs,
		CurrentTSOLogicalCounter: t.Logical,
	})
}
