package doris

import (
	"cmp"
	"fmt"
	"slices"
)

// Split is a unit of snapshot work: tablets read together, attributed to a
// BE for balancing.
type Split struct {
	ID      string // snapshot-<be>-<index>
	BE      string // host:bePort, "" when the plan had no routing
	Tablets []int64
}

// PlanSplits distributes the plan's tablets as the reference connector does:
// tablets in ascending id order, each to its first routing BE not used yet,
// else to the least-loaded of its routings (first on ties); then each BE's
// tablets are cut into splits of tabletsPerSplit (at least 1). Splits come
// out ordered by BE, then index, so the result is deterministic.
//
// Partitions: _query_plan keys are tablet ids of every partition, with no
// partition attached. Splits are formed by tablet count alone. Each tablet
// goes to exactly one BE and one chunk, so it is read exactly once for any
// tabletsPerSplit, and no split exceeds tabletsPerSplit tablets, so a split
// that spans a partition boundary is never larger than one that does not.
// A split's cost is its tablets' rows, not how many partitions they belong
// to, and a TABLET(...) scan reads tablets of different partitions alike;
// finding partition membership would take SHOW TABLETS per partition for
// nothing. Doris allocates a partition's tablet ids together, so ascending
// order keeps most splits within one partition anyway.
func PlanSplits(plan *QueryPlan, tabletsPerSplit int) []Split {
	if plan == nil {
		return nil
	}
	tabletsPerSplit = max(tabletsPerSplit, 1)
	tablets := slices.Clone(plan.Tablets)
	slices.SortFunc(tablets, func(a, b PlanTablet) int { return cmp.Compare(a.ID, b.ID) })
	byBE := map[string][]int64{}
	for _, t := range tablets {
		be := pickBE(byBE, t.Routings)
		byBE[be] = append(byBE[be], t.ID)
	}
	bes := make([]string, 0, len(byBE))
	for be := range byBE {
		bes = append(bes, be)
	}
	slices.Sort(bes)
	var splits []Split
	for _, be := range bes {
		ids := byBE[be]
		for i := 0; i*tabletsPerSplit < len(ids); i++ {
			chunk := ids[i*tabletsPerSplit : min((i+1)*tabletsPerSplit, len(ids))]
			splits = append(splits, Split{
				ID:      fmt.Sprintf("snapshot-%s-%d", be, i),
				BE:      be,
				Tablets: slices.Clone(chunk),
			})
		}
	}
	return splits
}

func pickBE(byBE map[string][]int64, routings []string) string {
	target, load := "", -1
	for _, be := range routings {
		n, used := len(byBE[be]), byBE[be] != nil
		if !used {
			return be
		}
		if load < 0 || n < load {
			target, load = be, n
		}
	}
	return target
}
