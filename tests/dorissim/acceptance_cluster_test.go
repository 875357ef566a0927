package dorissim

import (
	"encoding/json"
	"testing"
)

// SHOW FRONTENDS reports the simulator's cluster id in ClusterId, as a
// Doris FE prints Env.getClusterId(): DefaultClusterID unless configured,
// and a configured one per instance, so two simulators are two clusters.
func TestShowFrontendsClusterID(t *testing.T) {
	clusterOf := func(s *Server) string {
		t.Helper()
		_, data := httpDo(t, s, "POST", "/api/query/default_cluster/information_schema", `{"stmt":"show frontends"}`, nil)
		var env struct {
			Data struct {
				Meta []struct{ Name string }
				Data [][]any
			}
		}
		if err := json.Unmarshal(data, &env); err != nil || len(env.Data.Data) != 1 {
			t.Fatalf("show frontends: %v %s", err, data)
		}
		for i, m := range env.Data.Meta {
			if m.Name == "ClusterId" {
				v, _ := env.Data.Data[0][i].(string)
				return v
			}
		}
		t.Fatalf("show frontends has no ClusterId: %s", data)
		return ""
	}
	if got := clusterOf(startSim(t, Config{})); got != "1" {
		t.Errorf("default ClusterId %q, want 1", got)
	}
	a, b := startSim(t, Config{ClusterID: 1846299834}), startSim(t, Config{ClusterID: 7})
	if ga, gb := clusterOf(a), clusterOf(b); ga != "1846299834" || gb != "7" {
		t.Errorf("ClusterId %q and %q, want 1846299834 and 7", ga, gb)
	}
}
