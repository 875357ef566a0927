package input

import (
	"strings"
	"testing"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
)

// clusterEnv is a latest-mode input over d.a on a simulator of cluster id,
// with a checkpoint of cluster stored under key k ("" for one written
// before checkpoints recorded their cluster).
func clusterEnv(t *testing.T, id int32, stored string, accept string) (*simEnv, *checkpoint.State) {
	t.Helper()
	e := newSimEnv(t, dorissim.Config{ClusterID: id},
		&Config{Selection: fixedSelection("d.a"), ScanMode: "latest", CheckpointKey: "k", CheckpointAcceptCluster: accept},
		"CREATE DATABASE d", "CREATE TABLE d.a"+binlogDDL)
	st := checkpoint.New()
	st.StartChain(ckb("2026-12-01 10:00:00"))
	st.AddTable("d.a", false, checkpoint.Bound{}, 1)
	st.ClusterID = stored
	e.store(t, st)
	return e, st
}

// A fresh start records the cluster it starts on.
func TestFreshStartRecordsTheCluster(t *testing.T) {
	fr := runFreshStart(t, dorissim.Config{ClusterID: 777}, &Config{ScanMode: "latest"}, checkpoint.PhaseBinlog)
	if fr.sp.st.ClusterID != "777" {
		t.Fatalf("fresh start on cluster 777 records cluster %q", fr.sp.st.ClusterID)
	}
	if len(*fr.saved) != 1 || (*fr.saved)[0].ClusterID != "777" {
		t.Fatalf("stored start %+v, want it to carry cluster 777", *fr.saved)
	}
}

// A checkpoint of another cluster stops the start before any table is
// read or anything saved, naming both ids and the override.
func TestCheckpointOfAnotherClusterStops(t *testing.T) {
	e, _ := clusterEnv(t, 222, "111", "")
	su, saved := e.startup(t)
	_, err := su.run(testCtx(t))
	if !isFatal(err) {
		t.Fatalf("run = %v, want a fatal error", err)
	}
	for _, want := range []string{"key k was taken on Doris cluster 111", "reach Doris cluster 222", `checkpoint_accept_cluster_id: "111"`, e.srv.HTTPAddr()} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if len(*saved) != 0 {
		t.Fatalf("%d saves after a refused start", len(*saved))
	}
	if _, ok := su.del.Committed(); ok {
		t.Fatal("the refused checkpoint was restored into the delivery")
	}
}

// checkpoint_accept_cluster_id resumes the checkpoint of the cluster it
// names, saves it at once with this cluster's id, and warns.
func TestAcceptedClusterResumesAndRecordsTheNewOne(t *testing.T) {
	e, stored := clusterEnv(t, 222, "111", "111")
	su, saved := e.startup(t)
	sp, err := su.run(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	if sp.st.ClusterID != "222" || sp.st.Stream.Start != stored.Stream.Start {
		t.Fatalf("resumed %+v, want the stored position on cluster 222", sp.st)
	}
	if len(*saved) != 1 || (*saved)[0].ClusterID != "222" {
		t.Fatalf("saves %+v, want one recording cluster 222", *saved)
	}
	if n := len(e.lines.Lines("WARN", "checkpoint_accept_cluster_id is 111")); n != 1 {
		t.Errorf("%d warnings naming the override, want 1: %q", n, e.lines.Lines("", ""))
	}
	// Another cluster still stops: the setting names one cluster.
	e2, _ := clusterEnv(t, 333, "111", "444")
	if _, err := e2.startupRun(t); !isFatal(err) {
		t.Fatalf("checkpoint_accept_cluster_id 444 let a checkpoint of cluster 111 resume: %v", err)
	}
}

// A checkpoint written before the cluster was recorded resumes, takes
// the id, and is not saved for it alone (a plain resume saves nothing).
func TestCheckpointWithoutClusterTakesTheId(t *testing.T) {
	e, _ := clusterEnv(t, 222, "", "")
	su, saved := e.startup(t)
	sp, err := su.run(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	if sp.st.ClusterID != "222" {
		t.Fatalf("resumed with cluster %q, want 222 for its next save", sp.st.ClusterID)
	}
	if got, _ := su.del.Committed(); got.ClusterID != "222" {
		t.Fatalf("delivery holds cluster %q, want 222", got.ClusterID)
	}
	if len(*saved) != 0 {
		t.Fatalf("%d saves, want none before the first commit", len(*saved))
	}
}

// A run after a reconnect checks the position this process committed too:
// fenodes may reach another cluster by then.
func TestCommittedPositionOfAnotherClusterStops(t *testing.T) {
	e, stored := clusterEnv(t, 222, "111", "")
	su, _ := e.startup(t)
	if err := su.del.Commit(testCtx(t), stored.Clone()); err != nil {
		t.Fatal(err)
	}
	if _, err := su.run(testCtx(t)); !isFatal(err) || !strings.Contains(err.Error(), "taken on Doris cluster 111") {
		t.Fatalf("run = %v, want the cluster guard's error", err)
	}
}

func (e *simEnv) startupRun(t *testing.T) (*startPoint, error) {
	su, _ := e.startup(t)
	return su.run(testCtx(t))
}
