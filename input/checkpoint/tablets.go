package checkpoint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Tablets is a set of tablet ids. From version 3 it is stored as runs of
// consecutive ids, each written relative to the end of the one before: a
// table's tablets have neighbouring ids (Doris hands them out from one
// counter), so a run costs a few bytes whatever the ids' size, and even the
// worst case, every other tablet done, costs about two bytes a tablet instead
// of an id's 6 to 20. That keeps a snapshot of tens of thousands of tablets
// well inside a cache value (the doris cache's STRING holds 1 MiB).
//
// The text is comma-separated runs; a run is `<gap>` or `<gap>+<more>`: it
// starts gap after the previous run's last id (the first run's gap is from
// 0, so it is the first id) and holds more further consecutive ids. For
// example 5,6,7,10 is "5+2,3". Version 2 stored a JSON array of ids, which is
// still read.
type Tablets []int64

// MarshalJSON writes the run text; Encode never writes an empty set.
func (ts Tablets) MarshalJSON() ([]byte, error) {
	return json.Marshal(ts.runText())
}

func (ts Tablets) runText() string {
	ids := slices.Clone(ts)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	var b strings.Builder
	var prev int64
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(ids[i]-prev, 10))
		if j > i {
			b.WriteByte('+')
			b.WriteString(strconv.FormatInt(ids[j]-ids[i], 10))
		}
		prev, i = ids[j], j+1
	}
	return b.String()
}

// UnmarshalJSON reads the run text, or the version 2 array of ids.
func (ts *Tablets) UnmarshalJSON(b []byte) error {
	if bytes.HasPrefix(bytes.TrimSpace(b), []byte("[")) {
		var ids []int64
		if err := json.Unmarshal(b, &ids); err != nil {
			return err
		}
		*ts = ids
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("snapshot_done_tablets must be a run text or an array of ids: %w", err)
	}
	ids, err := parseRuns(s)
	if err != nil {
		return fmt.Errorf("snapshot_done_tablets %q: %w", short(s), err)
	}
	*ts = ids
	return nil
}

func parseRuns(s string) (Tablets, error) {
	if s == "" {
		return nil, nil
	}
	var ids Tablets
	var prev int64
	for i, run := range strings.Split(s, ",") {
		gapText, moreText, hasMore := strings.Cut(run, "+")
		gap, err := runNumber(gapText)
		if err != nil || gap < 1 {
			return nil, fmt.Errorf("run %d: gap %q is not a positive integer", i, gapText)
		}
		var more int64
		if hasMore {
			if more, err = runNumber(moreText); err != nil || more < 1 {
				return nil, fmt.Errorf("run %d: length %q is not a positive integer", i, moreText)
			}
		}
		if gap > math.MaxInt64-prev || more > math.MaxInt64-prev-gap {
			return nil, fmt.Errorf("run %d: tablet id out of range", i)
		}
		start := prev + gap
		if more > maxRunIDs || int64(len(ids))+more > maxRunIDs {
			return nil, fmt.Errorf("run %d: more than %d tablets", i, maxRunIDs)
		}
		for k := int64(0); k <= more; k++ {
			ids = append(ids, start+k)
		}
		prev = start + more
	}
	return ids, nil
}

// maxRunIDs bounds what a run text may expand to, so that a corrupt value
// cannot make Decode allocate without limit: far more tablets than any
// table has.
const maxRunIDs = 1 << 20

// runNumber parses a decimal without sign or leading zeros.
func runNumber(s string) (int64, error) {
	if s == "" || s[0] == '+' || s[0] == '-' || (len(s) > 1 && s[0] == '0') {
		return 0, fmt.Errorf("not a plain decimal")
	}
	return strconv.ParseInt(s, 10, 64)
}

func short(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
