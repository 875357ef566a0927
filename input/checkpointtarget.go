package input

import (
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

// CheckpointTarget is what `rpconnect-doris offsets` takes from a
// doris_binlog config: the cache and key its checkpoint is under, derived
// exactly as the input derives them, and how to reach its Doris.
type CheckpointTarget struct {
	// Cache is the checkpoint_cache resource.
	Cache string
	// Key is the checkpoint key: checkpoint_cache_key, else the one
	// binlog_consumer_id gives, else the selection's default.
	Key string
	// LegacyKey is where earlier builds kept the same selection's
	// checkpoint, which the input carries over; "" when Key was set.
	LegacyKey string
	// PollInterval is binlog_poll_interval: a running input saves at least
	// this often while it streams.
	PollInterval time.Duration
	// ScanMode is scan_mode, lower-cased.
	ScanMode string
	conf     *Config
}

// ParseCheckpointTarget validates a doris_binlog config as the input does
// (mgr must hold its checkpoint_cache) and returns its checkpoint target.
// Errors name the field and never hold the password.
func ParseCheckpointTarget(pc *service.ParsedConfig, mgr *service.Resources) (*CheckpointTarget, error) {
	c, err := parseConfig(pc, mgr)
	if err != nil {
		return nil, err
	}
	return &CheckpointTarget{
		Cache: c.CheckpointCache, Key: c.CheckpointKey, LegacyKey: c.LegacyCheckpointKey,
		PollInterval: c.PollInterval, ScanMode: c.ScanMode, conf: c,
	}, nil
}

// HasSnapshotPhase reports whether the scan mode reads table contents, so
// that a table can take a new snapshot.
func (t *CheckpointTarget) HasSnapshotPhase() bool { return t.conf.HasSnapshotPhase() }

// Password is the configured password, so that a caller can make sure it
// never prints it.
func (t *CheckpointTarget) Password() string { return t.conf.Password }

// RESTClient is a client of the input's FEs, with its credentials, TLS and
// timeouts, asking each FE once per call: a command that reports must not
// retry for long on an unreachable cluster.
func (t *CheckpointTarget) RESTClient() (*doris.Client, error) {
	return restClient(t.conf, nil, t.conf.FENodes, len(t.conf.FENodes))
}
