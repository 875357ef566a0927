package kafka

import (
	"crypto/tls"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

// config is the validated kafka_franz configuration.
type config struct {
	seeds       []string
	topic       *service.InterpolatedString
	key         *service.InterpolatedString // nil: no key
	partitioner string
	partition   *service.InterpolatedString // manual only
	meta        *service.MetadataFilter     // nil: no headers
	timestamp   *service.InterpolatedString // nil: time of writing
	clientID    string
	maxMsgBytes int32
	compression string // "" for the client's default
	timeout     time.Duration
	idempotent  bool
	autoCreate  bool
	tls         *tls.Config // nil: plain
	sasl        []saslConf
	exactlyOnce bool
	txnID       string
	tombstones  bool  // delete_tombstones
	markers     bool  // transaction_markers: write doris_binlog's markers
	tailScan    int64 // max_tail_scan_records
}

type saslConf struct {
	mechanism, username, password string
}

// parseConfig checks what the lint rule checks too, since linting can be
// disabled. Errors name the field and never hold a password.
func parseConfig(pc *service.ParsedConfig) (*config, error) {
	c := &config{}
	for _, f := range unsupportedFields {
		if pc.Contains(f) {
			return nil, fmt.Errorf("%s is a field of Redpanda Connect's kafka_franz that this kafka_franz does not support; remove it", f)
		}
	}
	for _, step := range []func(*service.ParsedConfig) error{c.parseRecord, c.parseProducer, c.parseSecurity, c.parseExactlyOnce} {
		if err := step(pc); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func (c *config) parseRecord(pc *service.ParsedConfig) error {
	seeds, err := pc.FieldStringList(fieldSeedBrokers)
	if err != nil {
		return doris.FieldErr(fieldSeedBrokers, err)
	}
	for _, s := range seeds {
		for _, a := range strings.Split(s, ",") {
			if a = strings.TrimSpace(a); a != "" {
				c.seeds = append(c.seeds, a)
			}
		}
	}
	if len(c.seeds) == 0 {
		return doris.FieldErr(fieldSeedBrokers, errors.New("at least one broker address is needed"))
	}
	if c.topic, err = pc.FieldInterpolatedString(fieldTopic); err != nil {
		return doris.FieldErr(fieldTopic, err)
	}
	if c.key, err = optInterpolated(pc, fieldKey); err != nil {
		return err
	}
	if c.timestamp, err = optInterpolated(pc, fieldTimestampMs); err != nil {
		return err
	}
	if c.partition, err = optInterpolated(pc, fieldPartition); err != nil {
		return err
	}
	c.partitioner = partMurmur2
	if pc.Contains(fieldPartitioner) {
		if c.partitioner, err = pc.FieldString(fieldPartitioner); err != nil {
			return doris.FieldErr(fieldPartitioner, err)
		}
	}
	if !slices.Contains(partitioners, c.partitioner) {
		return fmt.Errorf("%s must be one of %s; got %q", fieldPartitioner, strings.Join(partitioners, ", "), c.partitioner)
	}
	if (c.partitioner == partManual) != (c.partition != nil) {
		return errors.New("partition is needed with partitioner: manual and used only with it")
	}
	if pc.Contains(fieldMetadata) {
		if c.meta, err = pc.FieldMetadataFilter(fieldMetadata); err != nil {
			return doris.FieldErr(fieldMetadata, err)
		}
	}
	if c.clientID, err = pc.FieldString(fieldClientID); err != nil {
		return doris.FieldErr(fieldClientID, err)
	}
	if c.tombstones, err = pc.FieldBool(fieldDeleteTombstones); err != nil {
		return doris.FieldErr(fieldDeleteTombstones, err)
	}
	if c.markers, err = pc.FieldBool(fieldTransactionMarkers); err != nil {
		return doris.FieldErr(fieldTransactionMarkers, err)
	}
	if c.tombstones && c.key == nil {
		return errors.New("delete_tombstones needs key: a tombstone removes its key from a compacted topic")
	}
	return nil
}

func optInterpolated(pc *service.ParsedConfig, field string) (*service.InterpolatedString, error) {
	if !pc.Contains(field) {
		return nil, nil
	}
	s, err := pc.FieldInterpolatedString(field)
	if err != nil {
		return nil, doris.FieldErr(field, err)
	}
	return s, nil
}

func (c *config) parseProducer(pc *service.ParsedConfig) error {
	s, err := pc.FieldString(fieldMaxMessageBytes)
	if err != nil {
		return doris.FieldErr(fieldMaxMessageBytes, err)
	}
	n, err := humanize.ParseBytes(s)
	if err != nil || n < 1 || n > 1<<30 {
		return fmt.Errorf("%s must be a size from 1B to 1GiB, such as 1MiB; got %q", fieldMaxMessageBytes, s)
	}
	c.maxMsgBytes = int32(n)
	if pc.Contains(fieldCompression) {
		if c.compression, err = pc.FieldString(fieldCompression); err != nil {
			return doris.FieldErr(fieldCompression, err)
		}
		if !slices.Contains(compressions, c.compression) {
			return fmt.Errorf("%s must be one of %s; got %q", fieldCompression, strings.Join(compressions, ", "), c.compression)
		}
	}
	if c.timeout, err = pc.FieldDuration(fieldTimeout); err != nil {
		return doris.FieldErr(fieldTimeout, err)
	}
	if c.timeout <= 0 {
		return fmt.Errorf("%s must be positive; got %s", fieldTimeout, c.timeout)
	}
	if c.idempotent, err = pc.FieldBool(fieldIdempotent); err != nil {
		return doris.FieldErr(fieldIdempotent, err)
	}
	if c.autoCreate, err = pc.FieldBool(fieldAutoCreate); err != nil {
		return doris.FieldErr(fieldAutoCreate, err)
	}
	return nil
}

func (c *config) parseSecurity(pc *service.ParsedConfig) error {
	tconf, enabled, err := pc.FieldTLSToggled(fieldTLS)
	if err != nil {
		return doris.FieldErr(fieldTLS, err)
	}
	if enabled {
		c.tls = tconf
	}
	if !pc.Contains(fieldSASL) {
		return nil
	}
	list, err := pc.FieldObjectList(fieldSASL)
	if err != nil {
		return doris.FieldErr(fieldSASL, err)
	}
	for i, o := range list {
		var s saslConf
		if s.mechanism, err = o.FieldString(fieldSASLMechanism); err != nil {
			return fmt.Errorf("field sasl[%d].mechanism: %w", i, err)
		}
		if !slices.Contains(saslMechanism, s.mechanism) {
			return fmt.Errorf("sasl[%d].mechanism must be one of %s; got %q", i, strings.Join(saslMechanism, ", "), s.mechanism)
		}
		if s.username, err = o.FieldString(fieldSASLUsername); err != nil {
			return fmt.Errorf("field sasl[%d].username: %w", i, err)
		}
		if s.password, err = o.FieldString(fieldSASLPassword); err != nil {
			return fmt.Errorf("field sasl[%d].password could not be read", i)
		}
		if s.mechanism != "none" && s.username == "" {
			return fmt.Errorf("sasl[%d]: mechanism %s needs a username", i, s.mechanism)
		}
		c.sasl = append(c.sasl, s)
	}
	return nil
}

func (c *config) parseExactlyOnce(pc *service.ParsedConfig) error {
	var err error
	if c.exactlyOnce, err = pc.FieldBool(fieldExactlyOnce); err != nil {
		return doris.FieldErr(fieldExactlyOnce, err)
	}
	if c.txnID, err = pc.FieldString(fieldTransactionalID); err != nil {
		return doris.FieldErr(fieldTransactionalID, err)
	}
	c.txnID = strings.TrimSpace(c.txnID)
	switch {
	case c.exactlyOnce && c.txnID == "":
		return errors.New("exactly_once needs transactional_id: the Kafka transactional id of this writer")
	case !c.exactlyOnce && c.txnID != "":
		return errors.New("transactional_id is used only with exactly_once: true")
	case c.exactlyOnce && !c.idempotent:
		return errors.New("exactly_once needs idempotent_write: true: Kafka transactions are idempotent")
	case c.exactlyOnce && (c.partitioner == partRoundRobin || c.partitioner == partLeastBackup):
		return errors.New("exactly_once needs partitioner murmur2_hash or manual: a replayed message must land in the partition it was written to")
	case c.exactlyOnce && c.partitioner != partManual && c.key == nil:
		return errors.New("exactly_once needs key (or partitioner: manual): without a key a replayed message may land in another partition")
	}
	scan, err := pc.FieldInt(fieldMaxTailScan)
	if err != nil {
		return doris.FieldErr(fieldMaxTailScan, err)
	}
	if scan < 1 {
		return fmt.Errorf("%s must be at least 1; got %d", fieldMaxTailScan, scan)
	}
	c.tailScan = int64(scan)
	if c.exactlyOnce {
		mif, err := pc.FieldMaxInFlight()
		if err != nil {
			return doris.FieldErr(fieldMaxInFlight, err)
		}
		if mif != 1 {
			return fmt.Errorf("exactly_once needs max_in_flight: 1; got %d: batches must reach each partition in order", mif)
		}
	}
	return nil
}
