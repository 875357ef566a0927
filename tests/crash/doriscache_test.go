package crash

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// The doris-cache variant keeps the checkpoint in this table. Its database
// is outside the input's include pattern, so the input never follows the
// writes of its own checkpoints.
const (
	dorisCacheDB    = "ops"
	dorisCacheTable = dorisCacheDB + ".checkpoints"
)

// cacheYAML is the "cp" checkpoint cache of every run.
func (pc *pipelineConf) cacheYAML() string {
	if pc.cacheDB == nil {
		return harness.FileCache(pc.cacheDir())
	}
	return fmt.Sprintf("cache_resources:\n  - label: cp\n    doris:\n      jdbc_url: jdbc:mysql://%s\n      username: root\n      password: \"\"\n      table: %s\n",
		pc.srv.MySQLAddr(), dorisCacheTable)
}

// runDir is the working directory of run no: the suite's directory with the
// file cache; a new, empty one per run with the doris cache, so that a
// restart has no local state at all, as on another machine.
func (pc *pipelineConf) runDir(no int) string {
	if pc.cacheDB == nil {
		return pc.dir
	}
	return filepath.Join(pc.dir, fmt.Sprintf("wd-%02d", no))
}

// useDorisCache creates the cache table's database (the cache creates only
// the table) and opens the MySQL connection the suite reads the stored
// checkpoint through, as a pipeline on another host would.
func (pc *pipelineConf) useDorisCache(t *testing.T, srv *dorissim.Server) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := srv.Exec(ctx, "CREATE DATABASE IF NOT EXISTS "+dorisCacheDB); err != nil {
		t.Fatalf("creating database %s: %v", dorisCacheDB, err)
	}
	conn, err := sql.Open("mysql", "root:@tcp("+srv.MySQLAddr()+")/")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	pc.cacheDB = conn
}

// state is the newest intact stored copy of the input's checkpoint, from
// wherever this pipeline keeps it; nil when nothing intact is stored.
func (pc *pipelineConf) state() *checkpoint.State {
	if pc.cacheDB == nil {
		return storedState(pc.cacheDir())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rows, err := pc.cacheDB.QueryContext(ctx, "SELECT cache_value FROM "+dorisCacheTable+" WHERE cache_key IN (?, ?)",
		checkpointKey, checkpointKey+checkpoint.BackupSuffix)
	if err != nil {
		return nil // the table does not exist before the first run connects
	}
	defer func() { _ = rows.Close() }()
	var best *checkpoint.State
	for rows.Next() {
		var v string
		if rows.Scan(&v) != nil {
			continue
		}
		st, err := checkpoint.Decode([]byte(v))
		if err == nil && (best == nil || st.Seq > best.Seq) {
			best = st
		}
	}
	return best
}

// checkNoLocalState checks that the runs left nothing in their working
// directories but their configs, and that no file cache directory exists.
func (s *suite) checkNoLocalState() {
	s.t.Helper()
	if _, err := os.Stat(s.pc.cacheDir()); !errors.Is(err, os.ErrNotExist) {
		s.t.Errorf("file cache directory %s exists with the doris cache (%v)", s.pc.cacheDir(), err)
	}
	for _, r := range s.runs {
		ents, err := os.ReadDir(s.pc.runDir(r.no))
		if err != nil {
			s.t.Errorf("run %d: %v", r.no, err)
			continue
		}
		for _, e := range ents {
			if e.Name() != configName(r.no) {
				s.t.Errorf("run %d left %s in its working directory", r.no, e.Name())
			}
		}
	}
}
