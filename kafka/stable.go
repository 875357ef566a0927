package kafka

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

// stableBackoff is the wait between looks at a partition's last stable
// offset while an open transaction holds it back.
var stableBackoff = doris.BackoffPolicy{Base: 50 * time.Millisecond, Max: time.Second}

// waitStable waits, within timeout, until every transaction that was open
// on a partition of tps when it started has ended. A tail is read below
// the last stable offset, which another producer's open transaction holds
// at that transaction's first record: records this output committed after
// it would be missed, and written again. So the wait goes on until the last
// stable offset reaches the high watermark seen first. Each waiting
// partition is logged once; running out of time is an error that names the
// partitions, and the write is tried again. It returns, per partition, the
// high watermark the last stable offset reached: every record this writer
// committed lies below it, so the tail is searched below it, whatever other
// producers open above it meanwhile.
func (e *exactlyOnce) waitStable(ctx context.Context, tps []topicPartition) (map[topicPartition]int64, error) {
	ctx, cancel := context.WithTimeout(ctx, e.cfg.timeout)
	defer cancel()
	var topics []string
	seen := map[string]bool{}
	for _, tp := range tps {
		if !seen[tp.topic] {
			seen[tp.topic] = true
			topics = append(topics, tp.topic)
		}
	}
	adm := kadm.NewClient(e.cl)
	ends, err := adm.ListEndOffsets(ctx, topics...)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return nil, fmt.Errorf("high watermarks of %v: %w", topics, err)
	}
	began := time.Now()
	waiting := map[topicPartition]string{}
	reached := make(map[topicPartition]int64, len(tps))
	for attempt := 1; ; attempt++ {
		stable, err := adm.ListCommittedOffsets(ctx, topics...)
		if err == nil {
			err = stable.Error()
		}
		if err != nil {
			return nil, fmt.Errorf("last stable offsets of %v: %w", topics, err)
		}
		var behind []string
		for _, tp := range tps {
			h, ok1 := ends.Lookup(tp.topic, tp.partition)
			s, ok2 := stable.Lookup(tp.topic, tp.partition)
			if !ok1 || !ok2 {
				return nil, fmt.Errorf("partition %s: no offsets answered", tp)
			}
			if s.Offset >= h.Offset {
				reached[tp] = h.Offset
				continue
			}
			what := fmt.Sprintf("%s (last stable offset %d, high watermark %d)", tp, s.Offset, h.Offset)
			behind = append(behind, what)
			if _, ok := waiting[tp]; !ok {
				waiting[tp] = what
				e.log.Warnf("kafka_franz: the tail read of %s waits for an open transaction, most likely another producer's, to end: "+
					"its last stable offset %d is below the high watermark %d; waiting up to %s", tp, s.Offset, h.Offset, e.cfg.timeout)
			}
		}
		if len(behind) == 0 {
			if len(waiting) > 0 {
				e.log.Infof("kafka_franz: the open transactions ended after %s; reading the tails", time.Since(began).Round(time.Millisecond))
			}
			return reached, nil
		}
		if err := stableBackoff.Sleep(ctx, attempt); err != nil {
			return nil, fmt.Errorf("the tail read of %v waited %s for open transactions to end (timeout %s): "+
				"below the last stable offset it could miss records this output committed after them: %w",
				behind, time.Since(began).Round(time.Millisecond), e.cfg.timeout, err)
		}
	}
}
