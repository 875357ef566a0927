package kafka

import (
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// connOpts are the options every client of the output shares, the tail
// readers included: brokers, TLS and SASL.
func (c *config) connOpts() []kgo.Opt {
	opts := []kgo.Opt{
		kgo.SeedBrokers(c.seeds...),
		kgo.ClientID(c.clientID),
		kgo.DialTimeout(c.timeout),
		kgo.RequestTimeoutOverhead(c.timeout),
		kgo.RetryTimeout(c.timeout),
	}
	if c.tls != nil {
		opts = append(opts, kgo.DialTLSConfig(c.tls.Clone()))
	}
	var mechs []sasl.Mechanism
	for _, s := range c.sasl {
		switch s.mechanism {
		case "PLAIN":
			mechs = append(mechs, plain.Auth{User: s.username, Pass: s.password}.AsMechanism())
		case "SCRAM-SHA-256":
			mechs = append(mechs, scram.Auth{User: s.username, Pass: s.password}.AsSha256Mechanism())
		case "SCRAM-SHA-512":
			mechs = append(mechs, scram.Auth{User: s.username, Pass: s.password}.AsSha512Mechanism())
		}
	}
	if len(mechs) > 0 {
		opts = append(opts, kgo.SASL(mechs...))
	}
	return opts
}

// producerOpts are the writer's options.
func (c *config) producerOpts() []kgo.Opt {
	opts := append(c.connOpts(),
		kgo.ProducerBatchMaxBytes(c.maxMsgBytes),
		// No RecordDeliveryTimeout: franz-go measures it from the record's
		// timestamp, which timestamp_ms may set in the past. Each write's
		// context (timeout) bounds delivery instead.
		kgo.ProduceRequestTimeout(c.timeout),
		kgo.ProducerLinger(0),
	)
	if c.autoCreate {
		opts = append(opts, kgo.AllowAutoTopicCreation())
	}
	if codec, ok := compressionCodec(c.compression); ok {
		opts = append(opts, kgo.ProducerBatchCompression(codec))
	}
	if !c.idempotent {
		opts = append(opts, kgo.DisableIdempotentWrite())
	}
	switch {
	case c.exactlyOnce:
		// The output picks each partition itself: the tail check must
		// know it before writing.
		opts = append(opts, kgo.RecordPartitioner(kgo.ManualPartitioner()),
			kgo.TransactionalID(c.txnID), kgo.TransactionTimeout(max(c.timeout*6, time.Minute)))
	default:
		opts = append(opts, kgo.RecordPartitioner(partitioner(c.partitioner)))
	}
	return opts
}

func compressionCodec(name string) (kgo.CompressionCodec, bool) {
	switch name {
	case "none":
		return kgo.NoCompression(), true
	case "gzip":
		return kgo.GzipCompression(), true
	case "snappy":
		return kgo.SnappyCompression(), true
	case "lz4":
		return kgo.Lz4Compression(), true
	case "zstd":
		return kgo.ZstdCompression(), true
	}
	return kgo.CompressionCodec{}, false
}

// partitioner is the franz-go partitioner of a partitioner field value.
// murmur2_hash is Kafka's: murmur2 of the key, the same partition as the
// Java client picks.
func partitioner(name string) kgo.Partitioner {
	switch name {
	case partRoundRobin:
		return kgo.RoundRobinPartitioner()
	case partLeastBackup:
		return kgo.LeastBackupPartitioner()
	case partManual:
		return kgo.ManualPartitioner()
	}
	return kgo.StickyKeyPartitioner(nil)
}
