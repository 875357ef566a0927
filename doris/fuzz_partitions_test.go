package doris

import "testing"

func FuzzParsePartitions(f *testing.F) {
	f.Add([]byte(resultSet(showPartitionsMeta, `[["180060","p20080101000000","2","NORMAL"],[180039,"p2012","2","NORMAL"]]`)))
	f.Fuzz(func(t *testing.T, body []byte) {
		res, err := ParseStatementResponse(body)
		if err != nil {
			return
		}
		parts, err := ParsePartitions(res)
		if err != nil {
			return
		}
		seen := map[int64]bool{}
		for _, p := range parts {
			if p.ID <= 0 || p.Name == "" || seen[p.ID] {
				t.Fatalf("accepted partition %+v from %q", p, body)
			}
			seen[p.ID] = true
		}
		if len(parts) != len(res.Rows) {
			t.Fatalf("%d partitions from %d rows", len(parts), len(res.Rows))
		}
	})
}
