package input

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/input/windowplan"
)

// scanTimestampBound converts scan_timestamp, a wall-clock time in the FE's
// time zone, to a UTC window bound once at start by asking the FE. A time in
// a repeated hour means its first occurrence; a time the clocks skip is a
// config error, since no instant is the one the user meant.
func (s *startup) scanTimestampBound(ctx context.Context) (windowplan.Bound, error) {
	lt, err := doris.ResolveScanTimestamp(ctx, s.c.rest, s.conf.ScanTimestamp)
	if skipped := (*doris.SkippedTimeError)(nil); errors.As(err, &skipped) {
		return 0, fatalf("%v", err)
	}
	if err != nil {
		return 0, err
	}
	start := windowplan.BoundAt(lt.EpochMs)
	s.log.Infof("%s %s in the Doris FE time zone %s is %s %s", doris.ScanTimestampField, lt.Text, lt.Zone, start, windowZoneLabel)
	return start, nil
}

// convertToUTC rewrites a checkpoint written with FE-zone wall times
// (version 1, or version 2 before window_zone) into UTC bounds, once: the FE
// says which instant each time stands for, as its @incr parse did when the
// checkpoint was written. A time in a repeated hour is taken as its earlier
// instant, so the changes of that hour are read again rather than skipped;
// the position of the last delivered row still drops rows already delivered.
func (s *startup) convertToUTC(ctx context.Context, st *checkpoint.State) error {
	c := s.c
	var notes []string
	seen := map[checkpoint.Bound]checkpoint.Bound{}
	err := st.ToUTC(func(fe checkpoint.Bound) (checkpoint.Bound, error) {
		if out, ok := seen[fe]; ok {
			return out, nil
		}
		text := fe.String() // the FE resolves its own wall time
		lt, err := doris.ResolveLocalTime(ctx, c.rest, text)
		if err != nil {
			return checkpoint.Bound{}, fmt.Errorf("converting checkpoint time %s from the Doris FE time zone to UTC: %w", text, err)
		}
		out := windowplan.BoundAt(lt.EpochMs)
		note := fmt.Sprintf("%s -> %s %s", text, out, windowZoneLabel)
		switch {
		case !lt.Exists:
			note += " (a time the clocks skip; taken as Doris reads it)"
		case repeatedHour(c.zone, text, lt.EpochMs):
			note += " (in a repeated hour: the earlier instant, so that hour is read again rather than skipped)"
		}
		seen[fe] = out.Stored()
		notes = append(notes, note)
		return out.Stored(), nil
	})
	if err != nil {
		return err
	}
	if len(notes) == 0 {
		notes = append(notes, "it holds no window bound")
	}
	s.log.Infof("Checkpoint key %s in cache %s holds window bounds in the Doris FE time zone %s; converted once to UTC: %s. "+
		"It is saved with window_zone UTC from the next commit",
		s.conf.CheckpointKey, s.conf.CheckpointCache, c.zone.Name, strings.Join(notes, "; "))
	return nil
}

// repeatedHour tells whether text names a second instant too, an hour or
// half an hour (Lord Howe) after the one Doris took.
func repeatedHour(z doris.FEZone, text string, epochMs int64) bool {
	if z.Location == nil {
		return false
	}
	return z.Format(epochMs+3_600_000) == text || z.Format(epochMs+1_800_000) == text
}
