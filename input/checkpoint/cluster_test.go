package checkpoint

import "testing"

// A state records the cluster it was taken on; one written before that
// field existed still decodes, without it, and is written back unchanged.
func TestClusterIDStored(t *testing.T) {
	const old = `{"version":3,"window_zone":"UTC","stream":{"start":"2025-10-09 08:53:20"},"tables":{"db.t":{"phase":"binlog"}},"seq":4,"saved_at":"2025-10-09T08:53:31Z"}`
	const withID = `{"version":3,"window_zone":"UTC","stream":{"start":"2025-10-09 08:53:20"},"tables":{"db.t":{"phase":"binlog"}},"cluster_id":"1846299834","seq":4,"saved_at":"2025-10-09T08:53:31Z"}`
	st, err := Decode([]byte(old))
	if err != nil {
		t.Fatalf("a state without cluster_id: %v", err)
	}
	if st.ClusterID != "" {
		t.Fatalf("cluster id %q read from a state without one", st.ClusterID)
	}
	recorded := st.Clone()
	recorded.ClusterID = "1846299834"
	if Equal(st, recorded) {
		t.Fatal("Equal ignores the cluster id, so a commit would skip the save that records it")
	}
	for name, s := range map[string]*State{old: st, withID: recorded} {
		out, err := Encode(s)
		if err != nil || string(out) != name {
			t.Fatalf("Encode: %v\n got %s\nwant %s", err, out, name)
		}
		var enc encoder
		for range 2 {
			if out, err = enc.encode(s); err != nil || string(out) != name {
				t.Fatalf("the Store's encoder: %v\n got %s\nwant %s", err, out, name)
			}
		}
	}
	back, err := Decode([]byte(withID))
	if err != nil || back.ClusterID != "1846299834" {
		t.Fatalf("decoding cluster_id: %q, %v", back.ClusterID, err)
	}
}
