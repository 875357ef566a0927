package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// markerSource commits three transactions into mk.a and mk.b after the
// time it returns: one explicit transaction writing both tables (4 rows
// of a, 2 of b: one TSO), an UPDATE (update_before and update_after) and
// a DELETE.
func markerSource(t *testing.T) (*dorissim.Server, string) {
	t.Helper()
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, "mk", "a", harness.TableOpts{})
	harness.CreateTable(t, srv, "mk", "b", harness.TableOpts{})
	from := harness.Now(t, srv)
	ctx := ctxTimeout(t, 30*time.Second)
	txs := [][]string{
		{"INSERT INTO mk.a VALUES (1,'a1',1,1.00),(2,'a2',2,2.00),(3,'a3',3,3.00),(4,'a4',4,4.00)",
			"INSERT INTO mk.b VALUES (1,'b1',1,1.00),(2,'b2',2,2.00)"},
		{"UPDATE mk.a SET qty = 10 WHERE id = 1"},
		{"DELETE FROM mk.b WHERE id = 2"},
	}
	for _, stmts := range txs {
		if err := srv.ExecTx(ctx, stmts...); err != nil {
			t.Fatalf("%v: %v", stmts, err)
		}
	}
	return srv, from
}

// markerConfig is doris_binlog from `from` over mk with markers, two rows
// per batch so that the first transaction spans three batches, through
// processors (YAML list items, or "") into output.
func markerConfig(t *testing.T, srv *dorissim.Server, from, cacheDir, processors, output string) string {
	t.Helper()
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("http:\n  enabled: false\nlogger:\n  level: INFO\nshutdown_timeout: 20s\ninput:\n")
	harness.Indent(&b, harness.SelectYAML(srv, `include: ['mk\..*']`, "scan_mode: from-timestamp", "scan_timestamp: '"+from+"'",
		"batch_size: 2", "include_transaction_markers: true"))
	b.WriteString("pipeline:\n  threads: 1\n")
	if processors != "" {
		b.WriteString("  processors:\n" + processors)
	}
	b.WriteString("output:\n" + output)
	b.WriteString(harness.FileCache(cacheDir))
	return b.String()
}

// runMarkers runs the built binary on conf until done reports true
// (bounded), then stops it with SIGTERM.
func runMarkers(t *testing.T, conf string, done func() bool) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, rpconnect(t), "-c", path)
	cmd.Dir = dir
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(60 * time.Second)
	for !done() {
		select {
		case err := <-exited:
			t.Fatalf("rpconnect-doris exited: %v\n%s\nconfig:\n%s", err, logs.String(), conf)
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			<-exited
			t.Fatalf("not done within 60s; rpconnect-doris output:\n%s\nconfig:\n%s", logs.String(), conf)
		}
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	if err := <-exited; err != nil {
		t.Fatalf("rpconnect-doris did not stop cleanly: %v\n%s", err, logs.String())
	}
}

// outLine is a line of the file output: metadata and body.
type outLine struct {
	Meta map[string]any `json:"meta"`
	Row  map[string]any `json:"row"`
}

func readLines(t *testing.T, path string) []outLine {
	t.Helper()
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []outLine
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l outLine
		d := json.NewDecoder(strings.NewReader(sc.Text()))
		d.UseNumber()
		if err := d.Decode(&l); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		out = append(out, l)
	}
	return out
}

// describeLine is a marker as op@n[count table:n ...], a change as
// op:table:id; TSOs are numbered 1, 2, ... in order of appearance.
func describeLine(l outLine, tsoNo map[string]int) string {
	tso := fmt.Sprint(l.Meta["tso"])
	if _, ok := tsoNo[tso]; !ok {
		tsoNo[tso] = len(tsoNo) + 1
	}
	op := fmt.Sprint(l.Meta["operation"])
	switch op {
	case "begin", "commit":
		s := fmt.Sprintf("%s@%d", op, tsoNo[tso])
		if fmt.Sprint(l.Row["tso"]) != tso || l.Row["transaction_id"] != tso {
			s += fmt.Sprintf("(body tso %v, transaction_id %v, metadata tso %s)", l.Row["tso"], l.Row["transaction_id"], tso)
		}
		if n, ok := l.Row["event_count"]; ok {
			s += fmt.Sprintf("[%v", n)
			tables, _ := l.Row["tables"].([]any)
			for _, tc := range tables {
				m, _ := tc.(map[string]any)
				s += fmt.Sprintf(" %v:%v", m["table"], m["event_count"])
			}
			s += "]"
		}
		return s
	}
	return fmt.Sprintf("%s:%v:%v@%d", op, l.Meta["table"], l.Row["id"], tsoNo[tso])
}

var wantMarked = []string{
	"begin@1", "insert:a:1@1", "insert:a:2@1", "insert:a:3@1", "insert:a:4@1", "insert:b:1@1", "insert:b:2@1", "commit@1[6 mk.a:4 mk.b:2]",
	"begin@2", "update_before:a:1@2", "update_after:a:1@2", "commit@2[2 mk.a:2]",
	"begin@3", "delete:b:2@3", "commit@3[1 mk.b:1]",
}

// With include_transaction_markers, the built binary puts each Doris
// transaction between a begin and a commit marker, a transaction that
// wrote two tables included, across batch boundaries, the commit counting
// its changes per table.
func TestTransactionMarkersAroundEachTransaction(t *testing.T) {
	srv, from := markerSource(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "out.jsonl")
	conf := markerConfig(t, srv, from, filepath.Join(dir, "cp"), "    - mapping: 'root = {\"meta\": @, \"row\": this}'\n",
		fmt.Sprintf("  file:\n    path: %q\n    codec: lines\n", out))
	runMarkers(t, conf, func() bool { return len(readLines(t, out)) >= len(wantMarked) })
	tsoNo := map[string]int{}
	var got []string
	for _, l := range readLines(t, out) {
		got = append(got, describeLine(l, tsoNo))
	}
	if !slices.Equal(got, wantMarked) {
		t.Fatalf("output\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantMarked, "\n"))
	}
}

// doris_load drops the markers: the copy of a marked stream is the source.
func TestTransactionMarkersDorisLoadIgnoresThem(t *testing.T) {
	srv, from := markerSource(t)
	harness.CreateTable(t, srv, "mk_copy", "a", harness.TableOpts{})
	harness.CreateTable(t, srv, "mk_copy", "b", harness.TableOpts{})
	conf := markerConfig(t, srv, from, filepath.Join(t.TempDir(), "cp"), "",
		indentAll(loadOutputYAML(srv, "table_identifier: 'mk_copy.${! @table }'", "max_in_flight: 1")))
	same := func(tbl string) bool {
		return harness.Diff(harness.TableState(t, srv, "mk", tbl, "id", cols...), harness.TableState(t, srv, "mk_copy", tbl, "id", cols...)) == ""
	}
	runMarkers(t, conf, func() bool {
		return same("a") && same("b") && len(harness.TableState(t, srv, "mk_copy", "a", "id", cols...)) == 4
	})
}

// kafka_franz drops the markers unless transaction_markers is set, with
// exactly_once; with it, they are written in the stream's order.
func TestTransactionMarkersKafkaWritesThemOnlyWhenAsked(t *testing.T) {
	kc, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.AllowAutoTopicCreation(), kfake.DefaultNumPartitions(1))
	if err != nil {
		t.Fatal(err)
	}
	defer kc.Close()
	srv, from := markerSource(t)
	for _, markers := range []bool{false, true} {
		t.Run(fmt.Sprintf("transaction_markers=%v", markers), func(t *testing.T) {
			topic := fmt.Sprintf("mk-%v", markers)
			conf := markerConfig(t, srv, from, filepath.Join(t.TempDir(), "cp"), "", fmt.Sprintf(`  kafka_franz:
    seed_brokers: [ %s ]
    topic: %s
    key: '${! meta("table").or("transaction") }'
    metadata:
      include_patterns: [ '^(operation|tso|table)$' ]
    max_in_flight: 1
    exactly_once: true
    transactional_id: mk-%v
    transaction_markers: %v
`, kc.ListenAddrs()[0], topic, markers, markers))
			want := 9
			if markers {
				want = len(wantMarked)
			}
			var recs []*kgo.Record
			runMarkers(t, conf, func() bool { recs = consumeAll(t, kc, topic); return len(recs) >= want })
			time.Sleep(500 * time.Millisecond)
			recs = consumeAll(t, kc, topic)
			tsoNo := map[string]int{}
			var got []string
			for _, r := range recs {
				l := outLine{Meta: map[string]any{}}
				for _, h := range r.Headers {
					l.Meta[h.Key] = string(h.Value)
				}
				d := json.NewDecoder(bytes.NewReader(r.Value))
				d.UseNumber()
				if err := d.Decode(&l.Row); err != nil {
					t.Fatalf("record %q: %v", r.Value, err)
				}
				got = append(got, describeLine(l, tsoNo))
			}
			exp := wantMarked
			if !markers {
				exp = slices.DeleteFunc(slices.Clone(wantMarked), func(s string) bool {
					return strings.HasPrefix(s, "begin@") || strings.HasPrefix(s, "commit@")
				})
			}
			if !slices.Equal(got, exp) {
				t.Fatalf("topic %s holds\n%s\nwant\n%s", topic, strings.Join(got, "\n"), strings.Join(exp, "\n"))
			}
		})
	}
}

// consumeAll reads every committed record of topic (bounded).
func consumeAll(t *testing.T, kc *kfake.Cluster, topic string) []*kgo.Record {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(kc.ListenAddrs()...), kgo.ConsumeTopics(topic),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var out []*kgo.Record
	for range 3 {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) { out = append(out, r) })
		cancel()
	}
	return out
}

func indentAll(s string) string {
	var b strings.Builder
	harness.Indent(&b, s)
	return b.String()
}
