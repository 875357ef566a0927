package input

import (
	"context"
	"sync"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

// offsetPublisher writes the committed binlog position to the offset table
// for observation, as the reference connector does. It never blocks acks:
// the newest offset replaces any unpublished one, a publish happens at most
// once per poll interval, and a failure is logged and retried with the next.
type offsetPublisher struct {
	conf *Config
	log  *service.Logger

	mu      sync.Mutex
	pending string
	kick    chan struct{}
	stop    chan struct{}
	done    chan struct{}
	closing sync.Once
}

func newOffsetPublisher(conf *Config, log *service.Logger) (*offsetPublisher, error) {
	jdbc, err := doris.ParseJDBCURL(conf.JDBCURL)
	if err != nil {
		return nil, err
	}
	pub, err := doris.NewOffsetPublisher(jdbc, conf.Username, conf.Password, conf.TLS, conf.OffsetTable, conf.ConsumerID)
	if err != nil {
		return nil, err
	}
	return startOffsetPublisher(conf, log, pub), nil
}

// offsetSink is where offsets go: a *doris.OffsetPublisher, or a test's
// recorder.
type offsetSink interface {
	Publish(ctx context.Context, offset string) error
	Close() error
}

func startOffsetPublisher(conf *Config, log *service.Logger, pub offsetSink) *offsetPublisher {
	p := &offsetPublisher{
		conf: conf,
		log:  log,
		kick: make(chan struct{}, 1),
		stop: make(chan struct{}),
		done: make(chan struct{}),
	}
	go p.loop(pub)
	return p
}

func (p *offsetPublisher) offer(offset string) {
	p.mu.Lock()
	p.pending = offset
	p.mu.Unlock()
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

func (p *offsetPublisher) loop(pub offsetSink) {
	defer close(p.done)
	defer pub.Close()
	var published string
	for {
		select {
		case <-p.stop:
			p.publish(pub, &published) // the last committed offset
			return
		case <-p.kick:
		}
		p.publish(pub, &published)
		select {
		case <-p.stop:
			p.publish(pub, &published)
			return
		case <-time.After(p.conf.PollInterval):
		}
	}
}

func (p *offsetPublisher) publish(pub offsetSink, published *string) {
	p.mu.Lock()
	offset := p.pending
	p.mu.Unlock()
	if offset == "" || offset == *published {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), p.conf.ConnectTimeout+p.conf.ReadTimeout)
	defer cancel()
	if err := pub.Publish(ctx, offset); err != nil {
		p.log.Warnf("Failed to publish Doris source offset %s for consumer %s to %s (the next commit retries): %v",
			offset, p.conf.ConsumerID, p.conf.OffsetTable, err)
		return
	}
	*published = offset
}

func (p *offsetPublisher) close() {
	p.closing.Do(func() { close(p.stop) })
	<-p.done
}
