package crash

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// checkpointPath is the file the `file` cache keeps a table's primary
// checkpoint copy in, under the input's default key.
func checkpointPath(cacheDir, db, table string) string {
	return filepath.Join(cacheDir, checkpoint.SanitizeKey("doris_binlog_"+db+"_"+table))
}

// readCopy decodes one stored copy; (nil, nil) when it does not exist.
func readCopy(path string) (*checkpoint.State, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading checkpoint %s: %w", path, err)
	}
	st, err := checkpoint.Decode(b)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	return st, nil
}

// storedState is the newest intact copy of a table's checkpoint, as the
// input would load it; nil when nothing intact is stored.
func storedState(cacheDir, db, table string) *checkpoint.State {
	path := checkpointPath(cacheDir, db, table)
	var best *checkpoint.State
	for _, p := range []string{path, path + checkpoint.BackupSuffix} {
		st, err := readCopy(p)
		if err == nil && st != nil && (best == nil || st.Seq > best.Seq) {
			best = st
		}
	}
	return best
}

// tearPrimary leaves the primary copy the way a kill during the `file`
// cache's truncate-then-write does: empty, or cut in the middle. It refuses
// when the backup copy is not intact, since the input then rightly stops
// instead of guessing.
func tearPrimary(cacheDir, db, table string, half bool) error {
	path := checkpointPath(cacheDir, db, table)
	if st, err := readCopy(path + checkpoint.BackupSuffix); err != nil || st == nil {
		return fmt.Errorf("backup copy of %s.%s is not intact (%v), not tearing the primary", db, table, err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading checkpoint of %s.%s: %w", db, table, err)
	}
	if half {
		b = b[:len(b)/2]
	} else {
		b = nil
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("tearing checkpoint of %s.%s: %w", db, table, err)
	}
	return nil
}

// phaseOf is the phase the stored state gives db.table; "none" without one.
func phaseOf(st *checkpoint.State, table string) string {
	if st == nil || st.Tables[db+"."+table] == nil {
		return "none"
	}
	return st.Tables[db+"."+table].Phase
}
