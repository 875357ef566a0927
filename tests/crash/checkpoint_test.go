package crash

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// checkpointKey is the input's checkpoint_cache_key. It is set explicitly:
// the default for an include selection is a digest of the selection.
const checkpointKey = "crash_cp"

// checkpointPath is the file the `file` cache keeps the input's primary
// checkpoint copy in.
func checkpointPath(cacheDir string) string {
	return filepath.Join(cacheDir, checkpointKey)
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

// storedState is the newest intact copy of the input's checkpoint, as the
// input would load it; nil when nothing intact is stored.
func storedState(cacheDir string) *checkpoint.State {
	path := checkpointPath(cacheDir)
	var best *checkpoint.State
	for _, p := range []string{path, path + checkpoint.BackupSuffix} {
		st, err := readCopy(p)
		if err == nil && st != nil && (best == nil || st.Seq > best.Seq) {
			best = st
		}
	}
	return best
}

// bothIntact reports whether both copies decode, i.e. a save has completed.
func bothIntact(cacheDir string) bool {
	path := checkpointPath(cacheDir)
	for _, p := range []string{path, path + checkpoint.BackupSuffix} {
		if st, err := readCopy(p); err != nil || st == nil {
			return false
		}
	}
	return true
}

// tearPrimary leaves the primary copy the way a kill during the `file`
// cache's truncate-then-write does: empty, or cut in the middle. It refuses
// when the backup copy is not intact, since the input then rightly stops
// instead of guessing.
func tearPrimary(cacheDir string, half bool) error {
	path := checkpointPath(cacheDir)
	if st, err := readCopy(path + checkpoint.BackupSuffix); err != nil || st == nil {
		return fmt.Errorf("backup copy of %s is not intact (%v), not tearing the primary", checkpointKey, err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading checkpoint %s: %w", checkpointKey, err)
	}
	if half {
		b = b[:len(b)/2]
	} else {
		b = nil
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("tearing checkpoint %s: %w", checkpointKey, err)
	}
	return nil
}

// phaseNone is what phaseOf says of a table the state does not hold.
const phaseNone = "none"

// phaseOf is the phase the stored state gives db.table.
func phaseOf(st *checkpoint.State, table string) string {
	if st == nil || st.Tables[qualified(table)] == nil {
		return phaseNone
	}
	return st.Tables[qualified(table)].Phase
}

// qualified is the db.table name the checkpoint and the merge order use.
func qualified(table string) string { return db + "." + table }
