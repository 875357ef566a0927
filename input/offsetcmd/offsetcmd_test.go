package offsetcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/redpanda-data/benthos/v4/public/components/io"
	_ "github.com/redpanda-data/benthos/v4/public/components/pure"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

const testPassword = "pw-s3cr3t-value"

// stored is a checkpoint of d.a and d.b streaming, the chain mid-window
// after a row of d.b, saved at savedAt.
func stored(t *testing.T, savedAt time.Time) *checkpoint.State {
	t.Helper()
	s := checkpoint.New()
	start, _ := checkpoint.ParseBound("2026-01-01 10:00:00")
	s.StartChain(start)
	s.AddTable("d.a", false, checkpoint.Bound{}, 7)
	s.AddTable("d.b", false, checkpoint.Bound{}, 9)
	w0, _ := checkpoint.ParseBound("2026-01-01 10:00:10")
	w1, _ := checkpoint.ParseBound("2026-01-01 10:00:12")
	s.ChainProgress(w0, w1, checkpoint.Pos{TSO: (w0.Ms() + 500) << 18, Table: "d.b", LSN: 4})
	s.Seq, s.SavedAt = 5, savedAt
	return s
}

// writeConfig writes a config whose doris_binlog input keeps its
// checkpoint in a file cache in dir (seeded with st unless nil), and whose
// Doris is unreachable. extra lines go into the input.
func writeConfig(t *testing.T, dir string, st *checkpoint.State, extra ...string) string {
	t.Helper()
	if st != nil {
		b, err := checkpoint.Encode(st)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"ck", "ck.bak"} {
			if err := os.WriteFile(filepath.Join(dir, k), b, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	conf := fmt.Sprintf(`input:
  doris_binlog:
    fenodes: 127.0.0.1:1
    tables: [d.a, d.b]
    username: root
    password: %s
    scan_mode: initial
    binlog_poll_interval: 2s
    connect_timeout: 1s
    checkpoint_cache: cp
    checkpoint_cache_key: ck
%soutput:
  drop: {}
cache_resources:
  - label: cp
    file:
      directory: %q
`, testPassword, indentLines(extra), dir)
	path := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func indentLines(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString("    " + l + "\n")
	}
	return b.String()
}

func mustOpen(t *testing.T, path string) *Target {
	t.Helper()
	tg, err := Open(context.Background(), Options{ConfigPath: path})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tg.Close(context.Background()) })
	return tg
}

func storedState(t *testing.T, dir string) *checkpoint.State {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "ck"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := checkpoint.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestShowWithoutDorisReportsPositionsAndSaysSo(t *testing.T) {
	dir := t.TempDir()
	tg := mustOpen(t, writeConfig(t, dir, stored(t, time.Now().Add(-time.Hour))))
	r, err := tg.Show(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r.Cache != "cp" || r.Key != "ck" || r.Seq != 5 || len(r.Tables) != 2 {
		t.Fatalf("report %+v", r)
	}
	if r.Doris.Reachable || !strings.Contains(r.Doris.Error, "127.0.0.1:1") {
		t.Fatalf("doris %+v; want unreachable, naming the FE", r.Doris)
	}
	a, b := r.Tables[0], r.Tables[1]
	wantTSO := (stored(t, time.Time{}).Stream.Last.TSO)
	if a.Table != "d.a" || a.Phase != "binlog" || a.Position == nil || a.Position.TSO != wantTSO || a.Position.LSN != nil {
		t.Errorf("d.a %+v; want the chain's last TSO without another table's LSN", a)
	}
	if b.Position == nil || b.Position.LSN == nil || *b.Position.LSN != 4 || b.Position.Time != "2026-01-01 10:00:10.500" {
		t.Errorf("d.b position %+v; want lsn 4 at 10:00:10.500", b.Position)
	}
	if a.AgeSeconds == nil || *a.AgeSeconds < 3600 || a.TTLSeconds != nil {
		t.Errorf("d.a age %v ttl %v; want an age by the local clock and no TTL", a.AgeSeconds, a.TTLSeconds)
	}
	var out bytes.Buffer
	if err := Write(&out, FormatText, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"cache cp, key ck, seq 5", "Doris unreachable", "d.a", "d.b", "2026-01-01 10:00:10.500"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("text output lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if err := Write(&out, FormatJSON, r); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(out.Bytes(), &back); err != nil || back.Tables[1].Position.TSO != wantTSO {
		t.Fatalf("json output %v: %s", err, out.String())
	}
	if strings.Contains(out.String(), testPassword) {
		t.Fatal("the password is in the output")
	}
}

func TestSetTSOMovesOneTableAndKeepsSavedAt(t *testing.T) {
	dir := t.TempDir()
	savedAt := time.Now().Add(-time.Hour).UTC().Truncate(time.Second)
	tg := mustOpen(t, writeConfig(t, dir, stored(t, savedAt)))
	from, _ := checkpoint.ParseBound("2026-01-01 10:00:03")
	tso := (from.Ms()+250)<<18 | 2
	e, err := tg.Set(context.Background(), "d.a", SetPosition{TSO: tso}, EditOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !e.Written || e.Before.Tables[0].Phase != "binlog" || e.After.Tables[0].Phase != "catchup" || e.After.Tables[1].Phase != "binlog" {
		t.Fatalf("edit %+v", e)
	}
	st := storedState(t, dir)
	a := st.Tables["d.a"]
	if a.Phase != checkpoint.PhaseCatchUp || a.CatchUp.Start != from || a.CatchUp.Last == nil || a.CatchUp.Last.TSO != tso-1 {
		t.Fatalf("stored d.a %+v catchup %+v", a, a.CatchUp)
	}
	if st.Tables["d.b"].Phase != checkpoint.PhaseBinlog || st.Stream.Last.LSN != 4 || st.Seq != 6 || !st.SavedAt.Equal(savedAt) {
		t.Fatalf("stored state %+v; want d.b and the chain unchanged, seq 6, saved_at kept", st)
	}
	// saved_at kept: a second change right away is not refused.
	if _, err := tg.Set(context.Background(), "d.a", SetPosition{Timestamp: "2026-01-01 10:00:01"}, EditOptions{}); err != nil {
		t.Fatalf("second change: %v", err)
	}
	if got := storedState(t, dir).Tables["d.a"].CatchUp; got.Start.String() != "2026-01-01 10:00:01" || got.Last != nil {
		t.Fatalf("after --timestamp: %+v", got)
	}
}

func TestChangesRefusedWhileAnInputSaves(t *testing.T) {
	dir := t.TempDir()
	tg := mustOpen(t, writeConfig(t, dir, stored(t, time.Now().Add(-2*time.Second))))
	before, _ := os.ReadFile(filepath.Join(dir, "ck"))
	_, err := tg.Reset(context.Background(), []string{"d.b"}, EditOptions{})
	if err == nil || !strings.Contains(err.Error(), "--force") || !strings.Contains(err.Error(), "cp") {
		t.Fatalf("got %v; want a refusal naming the cache and --force", err)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "ck")); !bytes.Equal(before, after) {
		t.Fatal("a refused change wrote the checkpoint")
	}
	e, err := tg.Reset(context.Background(), []string{"d.b"}, EditOptions{DryRun: true, Force: true})
	if err != nil || e.Written || e.After.Tables[1].Phase != "snapshot" {
		t.Fatalf("forced dry run: %+v %v", e, err)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "ck")); !bytes.Equal(before, after) {
		t.Fatal("a dry run wrote the checkpoint")
	}
	if _, err := tg.Reset(context.Background(), []string{"d.b"}, EditOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	st := storedState(t, dir)
	if st.Tables["d.b"].Phase != checkpoint.PhaseSnapshot || st.Tables["d.b"].Start != st.Stream.Start || st.Tables["d.a"].Phase != checkpoint.PhaseBinlog {
		t.Fatalf("after reset: %+v", st.Tables)
	}
}

func TestErrorsNameTheTableAndHoldNoSecret(t *testing.T) {
	dir := t.TempDir()
	tg := mustOpen(t, writeConfig(t, dir, stored(t, time.Time{})))
	_, err := tg.Set(context.Background(), "d.zz", SetPosition{TSO: 1 << 40}, EditOptions{})
	if err == nil || !strings.Contains(err.Error(), "d.zz") || !strings.Contains(err.Error(), "d.a") {
		t.Fatalf("got %v; want the unknown table and the known ones named", err)
	}
	_, err = tg.Set(context.Background(), "d.a", SetPosition{Timestamp: "yesterday"}, EditOptions{})
	if err == nil || !strings.Contains(err.Error(), "--timestamp") {
		t.Fatalf("got %v; want the flag named", err)
	}
	// A config error that quotes the password still never prints it.
	path := writeConfig(t, t.TempDir(), nil, "fenodes_bad: x")
	b, _ := os.ReadFile(path)
	bad := strings.Replace(string(b), "binlog_poll_interval: 2s", "binlog_poll_interval: "+testPassword, 1)
	if err := os.WriteFile(path, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Open(context.Background(), Options{ConfigPath: path})
	if err == nil || strings.Contains(err.Error(), testPassword) || !strings.Contains(err.Error(), redacted) {
		t.Fatalf("got %v; want an error with the password redacted", err)
	}
}

func TestNoCheckpointAndKeys(t *testing.T) {
	dir := t.TempDir()
	tg := mustOpen(t, writeConfig(t, dir, nil))
	_, err := tg.Show(context.Background())
	if !errors.Is(err, errNoCheckpoint) || !strings.Contains(err.Error(), "ck") {
		t.Fatalf("got %v", err)
	}
	// The default key is the one the input derives.
	path := filepath.Join(dir, "default.yaml")
	conf := ("input:\n  doris_binlog:\n    fenodes: ${FE:127.0.0.1:1}\n    table_identifier: d.a\n    username: root\n    checkpoint_cache: cp\ncache_resources:\n  - label: cp\n    memory: {}\n")
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	tg = mustOpen(t, path)
	if tg.Key != checkpoint.TableKey("d", "a") {
		t.Fatalf("key %q, want %q", tg.Key, checkpoint.TableKey("d", "a"))
	}
	// A checkpoint still under an earlier build's key is named, not edited.
	legacy := checkpoint.LegacyTableKey("d", "a")
	conf = strings.Replace(conf, "memory: {}", fmt.Sprintf("file: {directory: %q}", dir), 1)
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := checkpoint.Encode(stored(t, time.Time{}))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, legacy), b, 0o600); err != nil {
		t.Fatal(err)
	}
	tg = mustOpen(t, path)
	_, err = tg.Reset(context.Background(), []string{"d.a"}, EditOptions{})
	if err == nil || !strings.Contains(err.Error(), legacy) || !strings.Contains(err.Error(), "carry it over") {
		t.Fatalf("got %v; want the earlier key %s named", err, legacy)
	}
}

func TestTwoInputsNeedALabel(t *testing.T) {
	dir := t.TempDir()
	path := writeConfig(t, dir, stored(t, time.Time{}))
	res := filepath.Join(dir, "res.yaml")
	other := "input_resources:\n  - label: second\n    doris_binlog:\n      fenodes: 127.0.0.1:1\n      table_identifier: d.c\n      username: root\n      checkpoint_cache: cp\n"
	if err := os.WriteFile(res, []byte(other), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(context.Background(), Options{ConfigPath: path, ResourcePaths: []string{res}})
	if err == nil || !strings.Contains(err.Error(), "--input-label") || !strings.Contains(err.Error(), `"second"`) {
		t.Fatalf("got %v; want a request for --input-label listing the labels", err)
	}
	tg, err := Open(context.Background(), Options{ConfigPath: path, ResourcePaths: []string{res}, InputLabel: "second"})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close(context.Background())
	if tg.Key != checkpoint.TableKey("d", "c") {
		t.Fatalf("key %q: the labelled input's key was not used", tg.Key)
	}
}
