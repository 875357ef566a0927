package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// fallbackStream is doris_load (random labels: cdc false) in a fallback
// output whose second output writes the batches doris_load failed to a
// file, which the test reads back.
func fallbackStream(t *testing.T, srv *dorissim.Server) (*loadStream, string) {
	t.Helper()
	spill := filepath.Join(t.TempDir(), "fallback.jsonl")
	load := loadOutputYAML(srv, "table_identifier: '${! @target }'", `cdc: "false"`, "request_retries: 1")
	out := "fallback:\n  - " + strings.ReplaceAll(strings.TrimRight(load, "\n"), "\n", "\n    ") + "\n" +
		"  - file:\n      path: " + spill + "\n      codec: lines\n"
	return startLoadStream(t, "", "", out), spill
}

func rowTo(body, target string) *service.Message {
	m := service.NewMessage([]byte(body))
	m.MetaSetMut("target", target)
	return m
}

func spilled(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

// TestLoadFallbackLeavesNoLabelOfALoadedPart: a batch whose second target
// fails goes to the fallback output after its first target loaded. A later
// batch with the first target's row must load it again: before, it took
// the label of the load that had succeeded and Doris skipped it as "Label
// Already Exists".
func TestLoadFallbackLeavesNoLabelOfALoadedPart(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, "log", "a", harness.TableOpts{Duplicate: true, NoBinlog: true})
	ls, spill := fallbackStream(t, srv)
	row := `{"id":1,"name":"x","qty":1,"amount":"1.00"}`
	// log.missing does not exist: Doris fails that load.
	if err := ls.write(t, rowTo(row, "log.a"), rowTo(`{"id":2,"name":"y","qty":1,"amount":"1.00"}`, "log.missing")); err != nil {
		t.Fatalf("the fallback did not take the failed batch: %v", err)
	}
	if got := spilled(t, spill); strings.Count(got, "\n") != 2 {
		t.Fatalf("fallback output holds %q, want the failed batch's two rows", got)
	}
	if n := countRows(t, srv, "log", "a"); n != 1 {
		t.Fatalf("log.a holds %d rows after the partly failed batch, want 1", n)
	}
	if err := ls.write(t, rowTo(row, "log.a")); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, srv, "log", "a"); n != 2 {
		t.Fatalf("log.a holds %d rows: the later batch was skipped as already loaded", n)
	}
	if got := spilled(t, spill); strings.Count(got, "\n") != 2 {
		t.Fatalf("the later batch went to the fallback output: %q", got)
	}
}

// TestLoadLostAnswerIsNotAFailure: a load that committed but lost its
// answer (no attempts left) is resolved by its label's state: the batch
// succeeds instead of going to the fallback output with its rows loaded,
// and a later batch with the same row loads it again instead of being
// skipped under a kept label.
func TestLoadLostAnswerIsNotAFailure(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, "log", "a", harness.TableOpts{Duplicate: true, NoBinlog: true})
	ls, spill := fallbackStream(t, srv)
	row := `{"id":1,"name":"x","qty":1,"amount":"1.00"}`
	srv.SetFaults(dorissim.Faults{StreamLoadLostAnswers: 1})
	if err := ls.write(t, rowTo(row, "log.a")); err != nil {
		t.Fatal(err)
	}
	if got := spilled(t, spill); got != "" {
		t.Fatalf("a load that committed went to the fallback output: %q", got)
	}
	if err := ls.write(t, rowTo(row, "log.a")); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, srv, "log", "a"); n != 2 {
		t.Fatalf("log.a holds %d rows after two one-row batches, want 2", n)
	}
	// Without the lost answer the test proves nothing: the fault must have
	// cost the state lookup.
	if n := srv.Stats().HTTP["GET /api/{db}/get_load_state"]; n < 1 {
		t.Fatalf("no label state lookup: the lost-answer fault never fired")
	}
}
