package input

import (
	"context"
	"slices"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

// Doris drops a partition (DROP PARTITION, dynamic partition expiry) without
// writing change records for its rows, so a downstream copy keeps them. The
// input cannot replay what Doris never recorded; it can notice and say so.

// notePartitions records the table's partitions as the baseline of the next
// comparison; a failure leaves the previous baseline.
func (t *tableInfo) notePartitions(ctx context.Context) {
	parts, err := doris.Partitions(ctx, t.c.rest, t.name.db, t.name.table)
	if err != nil {
		t.c.log.Debugf("Listing the partitions of %s failed; dropped partitions are looked for at the next discovery: %v", t.name.key, err)
		return
	}
	seen := make(map[int64]string, len(parts))
	for _, p := range parts {
		seen[p.ID] = p.Name
	}
	t.mu.Lock()
	t.partitions = seen
	t.mu.Unlock()
}

// droppedPartitions lists the table's partitions again and returns the
// names of those that were there at the last look and are gone now.
func (t *tableInfo) droppedPartitions(ctx context.Context) []string {
	t.mu.Lock()
	before := t.partitions
	t.mu.Unlock()
	t.notePartitions(ctx)
	t.mu.Lock()
	after := t.partitions
	t.mu.Unlock()
	if before == nil || after == nil {
		return nil
	}
	var gone []string
	for id, name := range before {
		if _, ok := after[id]; !ok {
			gone = append(gone, name)
		}
	}
	slices.Sort(gone)
	return gone
}

// warnDroppedPartitions reports each partition of t that disappeared since
// the last discovery.
func (cat *catalog) warnDroppedPartitions(ctx context.Context, t *tableInfo) {
	for _, p := range t.droppedPartitions(ctx) {
		cat.m.droppedPartitions.Incr(1, t.name.key)
		cat.log.Warnf("Partition %s of table %s was dropped (DROP PARTITION or dynamic partition expiry): Doris writes no change records for its rows, "+
			"so a downstream copy still holds them. Delete that partition's range downstream, or re-snapshot the table into a fresh target", p, t.name.key)
	}
}
