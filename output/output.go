// Package output implements the doris_load output: Stream Load into Apache
// Doris tables, with change events applied as upserts and deletes and labels
// derived from source positions so that replays load nothing twice.
// Importing the package registers the output with the global Benthos
// environment.
package output

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

const outputName = "doris_load"

func init() {
	service.MustRegisterBatchOutput(outputName, Spec(), newOutput)
}

func newOutput(pc *service.ParsedConfig, mgr *service.Resources) (service.BatchOutput, service.BatchPolicy, int, error) {
	var pol service.BatchPolicy
	conf, err := parseConfig(pc)
	if err != nil {
		return nil, pol, 0, err
	}
	if pol, err = pc.FieldBatchPolicy(fieldBatching); err != nil {
		return nil, pol, 0, err
	}
	maxInFlight, err := pc.FieldMaxInFlight()
	if err != nil {
		return nil, pol, 0, err
	}
	o, err := newDorisLoad(conf, mgr.Logger())
	if err != nil {
		return nil, pol, 0, err
	}
	return o, pol, maxInFlight, nil
}

// dorisLoad is the output. It is safe for concurrent WriteBatch calls.
type dorisLoad struct {
	conf *config
	tr   *transport
	fe   *doris.Client // schema lookups
	log  *service.Logger

	inOrder doris.BackoffPolicy // between in-place retries of a batch

	modelsMu sync.Mutex
	models   map[string]string // target -> keysType
}

func newDorisLoad(conf *config, log *service.Logger) (*dorisLoad, error) {
	warnPlaintextRedirects(conf, log)
	cc := doris.ClientConfig{
		FENodes: conf.conn.FENodes, Username: conf.conn.Username, Password: conf.conn.Password,
		TLS: conf.conn.TLS, Retries: conf.retries, ConnectTimeout: conf.connectTimeout,
		ReadTimeout: conf.readTimeout, Logger: log,
	}
	lookups := cc
	lookups.ReadTimeout = conf.connectTimeout
	fe, err := doris.NewClient(lookups)
	if err != nil {
		return nil, err
	}
	return &dorisLoad{
		conf:   conf,
		tr:     newTransport(transportConfig{ClientConfig: cc, LoadLimit: conf.loadLimit(), AllowPlaintextRedirects: conf.allowPlainHop}),
		fe:     fe,
		log:    log,
		models: map[string]string{},

		inOrder: inOrderBackoff,
	}, nil
}

// Connect has nothing to open: every load is its own HTTP exchange.
func (o *dorisLoad) Connect(context.Context) error { return nil }

func (o *dorisLoad) Close(context.Context) error {
	o.tr.close()
	o.fe.Close()
	return nil
}

// assignLabel picks the part's label: derived from its positions and
// sources when every message has them, else random.
func (o *dorisLoad) assignLabel(p *part) {
	if !o.conf.labels() {
		return
	}
	if p.positioned {
		p.label = deterministicLabel(o.conf.labelPrefix, p.target, p.sources, p.first, p.last, len(p.msgs))
		return
	}
	p.label = randomLabel(o.conf.labelPrefix)
}

// loadHeaders are the Stream Load headers of one part.
func (o *dorisLoad) loadHeaders(p *part) http.Header {
	c := o.conf
	h := http.Header{}
	for k, v := range c.headers {
		setRaw(h, k, v)
	}
	setRaw(h, "format", c.format)
	if c.format == formatJSON {
		setRaw(h, "read_json_by_line", "true")
	}
	if p.label != "" {
		setRaw(h, "label", p.label)
	}
	unique := p.model == keysUnique
	deleteSign := p.cdc && unique
	cols := c.columns
	if cols != "" {
		if deleteSign {
			cols += "," + deleteSignColumn
		}
		if c.seqCol != "" {
			cols += "," + c.seqCol
		}
		setRaw(h, "columns", cols)
	} else if deleteSign {
		setRaw(h, "hidden_columns", deleteSignColumn)
	}
	if c.seqCol != "" && unique {
		setRaw(h, "function_column.sequence_col", c.seqCol)
	}
	if c.partial {
		setRaw(h, "partial_columns", "true")
	}
	setIf(h, "max_filter_ratio", c.maxFilterRatio)
	setIf(h, "strict_mode", c.strictMode)
	setIf(h, "timeout", c.timeoutSecs)
	if c.twoPC {
		setRaw(h, "two_phase_commit", "true")
	}
	if c.groupCommit != groupCommitOff {
		setRaw(h, "group_commit", c.groupCommit)
	}
	return h
}

func setIf(h http.Header, k, v string) {
	if v != "" {
		setRaw(h, k, v)
	}
}

// setRaw keeps the header name as Doris documents it (lower case, dots)
// instead of Go's canonical form, as Doris's own clients send it.
func setRaw(h http.Header, k, v string) {
	for old := range h {
		if strings.EqualFold(old, k) {
			delete(h, old)
		}
	}
	h[k] = []string{v}
}

func jsonString(s string) ([]byte, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encode %q: %w", s, err)
	}
	return b, nil
}
