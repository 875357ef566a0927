package input

import (
	"context"
	"fmt"
	"strings"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// A checkpoint's positions are TSOs and wall times of the cluster it was
// taken on; another cluster (a failover target, the other half of a
// blue/green pair, a restore into a new cluster) has other transactions at
// those times, and resuming there would silently read the wrong range. So
// the state records the cluster's id (SHOW FRONTENDS ClusterId), and a
// start compares it with the cluster fenodes reach before reading anything.

// currentCluster reads the id of the cluster fenodes reach.
func (s *startup) currentCluster(ctx context.Context) (string, error) {
	id, err := doris.ClusterID(ctx, s.c.rest)
	if err != nil {
		return "", fmt.Errorf("identifying the Doris cluster of fenodes %s, which the checkpoint records: %w", strings.Join(s.conf.FENodes, ","), err)
	}
	return id, nil
}

// guardCluster lets st be resumed on cluster current, or says why not. A
// state written before states recorded their cluster takes current, which
// its next save writes. record is true when st came from the cluster
// checkpoint_accept_cluster_id names: it now carries current and is to be
// saved at once, so that the override is spent even if no row follows.
func (s *startup) guardCluster(st *checkpoint.State, current string) (record bool, err error) {
	switch stored := st.ClusterID; {
	case stored == current:
		return false, nil
	case stored == "":
		s.log.Infof("Checkpoint key %s in cache %s was written before checkpoints recorded their Doris cluster; it is resumed on cluster %s (fenodes %s) and records that id from its next save",
			s.conf.CheckpointKey, s.conf.CheckpointCache, current, strings.Join(s.conf.FENodes, ","))
		st.ClusterID = current
		return false, nil
	case stored == s.conf.CheckpointAcceptCluster:
		s.log.Warnf("Checkpoint key %s in cache %s was taken on Doris cluster %s, and fenodes %s reach cluster %s: it is resumed there because %s is %s, and records cluster %s from now on (the setting can be removed)",
			s.conf.CheckpointKey, s.conf.CheckpointCache, stored, strings.Join(s.conf.FENodes, ","), current, fieldCheckpointAcceptCluster, stored, current)
	default:
		return false, fatalf("checkpoint_cache %s, key %s was taken on Doris cluster %s, but fenodes %s reach Doris cluster %s (SHOW FRONTENDS ClusterId): "+
			"a position of one cluster means nothing on another, so the input stops before reading. Point fenodes at cluster %s, "+
			"or set %s: %q to resume this checkpoint on cluster %s anyway",
			s.conf.CheckpointCache, s.conf.CheckpointKey, stored, strings.Join(s.conf.FENodes, ","), current, stored, fieldCheckpointAcceptCluster, stored, current)
	}
	st.ClusterID = current
	return true, nil
}
