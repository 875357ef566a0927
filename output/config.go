package output

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

const (
	formatJSON = "json"
	formatCSV  = "csv"

	cdcAuto = "auto"
	cdcOn   = "true"
	cdcOff  = "false"

	groupCommitOff = "off_mode"
)

// config is the validated doris_load configuration.
type config struct {
	conn           doris.Connection
	allowPlainHop  bool // allow_plaintext_redirects
	target         *service.InterpolatedString
	format         string
	columns        string
	partial        bool
	maxFilterRatio string        // "" when unset
	strictMode     string        // "" when unset
	timeoutSecs    string        // "" when unset
	timeout        time.Duration // 0 when unset
	headers        map[string]string
	csvSeparator   string
	cdc            string
	seqCol         string
	seqKey         []byte // the sequence column as a JSON key
	labelPrefix    string
	twoPC          bool
	retryInOrder   bool
	groupCommit    string
	retries        int
	connectTimeout time.Duration
	readTimeout    time.Duration
	stateWait      time.Duration // how long an in-doubt label is waited for
	create         createConfig  // create_tables
	evolve         bool          // schema_evolution.enabled
	dropColumns    bool          // schema_evolution.drop_columns
}

// labels reports whether loads carry labels: group commit refuses them.
func (c *config) labels() bool { return c.groupCommit == groupCommitOff }

// parseConfig validates what the lint rules check, since linting can be
// disabled. Errors name the field and never hold the password.
func parseConfig(pc *service.ParsedConfig) (*config, error) {
	c := &config{}
	var err error
	if c.conn, err = doris.ParseConnection(pc); err != nil {
		return nil, err
	}
	if c.allowPlainHop, err = pc.FieldBool(fieldAllowPlaintextRedirects); err != nil {
		return nil, fieldErr(fieldAllowPlaintextRedirects, err)
	}
	if c.target, err = pc.FieldInterpolatedString(fieldTableIdentifier); err != nil {
		return nil, fieldErr(fieldTableIdentifier, err)
	}
	for _, step := range []func(*service.ParsedConfig, *config) error{parseLoadOptions, parseCDC, parseLabels, parseRequests, parseCreate, parseEvolution} {
		if err := step(pc, c); err != nil {
			return nil, err
		}
	}
	if err := checkHeaders(c); err != nil {
		return nil, err
	}
	return c, c.crossCheck()
}

var (
	fieldErr  = doris.FieldErr
	optString = doris.OptString
	parseEnum = doris.ParseEnum
)

func parseLoadOptions(pc *service.ParsedConfig, c *config) error {
	var err error
	if c.format, err = parseEnum(pc, fieldFormat, formatJSON, formatCSV); err != nil {
		return err
	}
	if c.columns, err = optString(pc, fieldColumns); err != nil {
		return err
	}
	if c.partial, err = pc.FieldBool(fieldPartialColumns); err != nil {
		return fieldErr(fieldPartialColumns, err)
	}
	if pc.Contains(fieldMaxFilterRatio) {
		r, err := pc.FieldFloat(fieldMaxFilterRatio)
		if err != nil {
			return fieldErr(fieldMaxFilterRatio, err)
		}
		if r < 0 || r > 1 {
			return fmt.Errorf("field %s: max_filter_ratio must be between 0 and 1; got %v", fieldMaxFilterRatio, r)
		}
		c.maxFilterRatio = strconv.FormatFloat(r, 'f', -1, 64)
	}
	if pc.Contains(fieldStrictMode) {
		b, err := pc.FieldBool(fieldStrictMode)
		if err != nil {
			return fieldErr(fieldStrictMode, err)
		}
		c.strictMode = strconv.FormatBool(b)
	}
	if pc.Contains(fieldTimeout) {
		d, err := pc.FieldDuration(fieldTimeout)
		if err != nil {
			return fieldErr(fieldTimeout, err)
		}
		if d <= 0 {
			return fmt.Errorf("field %s: timeout must be positive; got %s", fieldTimeout, d)
		}
		c.timeout = (d + time.Second - 1) / time.Second * time.Second
		c.timeoutSecs = strconv.FormatInt(int64(c.timeout/time.Second), 10)
	}
	if c.headers, err = pc.FieldStringMap(fieldHeaders); err != nil {
		return fieldErr(fieldHeaders, err)
	}
	c.csvSeparator = "\t"
	for k, v := range c.headers {
		lk := strings.ToLower(k)
		for _, m := range managedHeaders {
			if lk == m {
				return fmt.Errorf("field %s: headers.%s is set by doris_load itself; use its field instead", fieldHeaders, k)
			}
		}
		if lk == "column_separator" {
			c.csvSeparator = decodeSeparator(v)
		}
	}
	return nil
}

// decodeSeparator turns Doris's \xNN notation into the bytes it stands for.
func decodeSeparator(s string) string {
	if len(s) < 4 || !strings.HasPrefix(strings.ToLower(s), `\x`) {
		return s
	}
	var b []byte
	for rest := s; rest != ""; {
		if len(rest) < 4 || !strings.HasPrefix(strings.ToLower(rest), `\x`) {
			return s
		}
		n, err := strconv.ParseUint(rest[2:4], 16, 8)
		if err != nil {
			return s
		}
		b = append(b, byte(n))
		rest = rest[4:]
	}
	return string(b)
}

func parseCDC(pc *service.ParsedConfig, c *config) error {
	var err error
	if c.cdc, err = parseEnum(pc, fieldCDC, cdcAuto, cdcOn, cdcOff); err != nil {
		return err
	}
	if c.seqCol, err = optString(pc, fieldSequenceColumn); err != nil {
		return err
	}
	if c.seqCol != "" {
		key, _ := jsonString(c.seqCol)
		c.seqKey = key
	}
	return nil
}

func parseLabels(pc *service.ParsedConfig, c *config) error {
	var err error
	if c.labelPrefix, err = pc.FieldString(fieldLabelPrefix); err != nil {
		return fieldErr(fieldLabelPrefix, err)
	}
	if n := len(c.labelPrefix); n < 1 || n > 64 || sanitizeLabel(c.labelPrefix) != c.labelPrefix {
		return fmt.Errorf("field %s: label_prefix must be 1 to 64 characters from [-_A-Za-z0-9:]; got %q", fieldLabelPrefix, c.labelPrefix)
	}
	if c.twoPC, err = pc.FieldBool(fieldTwoPhaseCommit); err != nil {
		return fieldErr(fieldTwoPhaseCommit, err)
	}
	if c.retryInOrder, err = pc.FieldBool(fieldRetryInOrder); err != nil {
		return fieldErr(fieldRetryInOrder, err)
	}
	c.groupCommit, err = parseEnum(pc, fieldGroupCommit, groupCommitOff, "sync_mode", "async_mode")
	return err
}

func parseRequests(pc *service.ParsedConfig, c *config) error {
	var err error
	if c.retries, err = pc.FieldInt(fieldRetries); err != nil {
		return fieldErr(fieldRetries, err)
	}
	if c.retries < 1 {
		return fmt.Errorf("field %s: request_retries must be at least 1; got %d", fieldRetries, c.retries)
	}
	if c.connectTimeout, err = pc.FieldDuration(fieldConnectTimeout); err != nil {
		return fieldErr(fieldConnectTimeout, err)
	}
	if c.readTimeout, err = pc.FieldDuration(fieldReadTimeout); err != nil {
		return fieldErr(fieldReadTimeout, err)
	}
	if c.connectTimeout <= 0 || c.readTimeout <= 0 {
		return fmt.Errorf("fields %s and %s must be positive", fieldConnectTimeout, fieldReadTimeout)
	}
	c.stateWait = c.readTimeout
	return nil
}

// loadLimit bounds one attempt of a Stream Load, upload and answer: the
// time Doris gives the load, plus request_connect_timeout for the
// connections and redirects around it. Without a timeout Doris's own
// default (days) is no bound, so request_read_timeout stands in.
func (c *config) loadLimit() time.Duration {
	if c.timeout > 0 {
		return c.timeout + c.connectTimeout
	}
	return c.readTimeout + c.connectTimeout
}

// crossCheck mirrors the spec lint rule.
func (c *config) crossCheck() error {
	switch {
	case c.groupCommit != groupCommitOff && c.twoPC:
		return fmt.Errorf("field %s: two_phase_commit cannot be combined with group_commit %s: Doris refuses two-phase commit in group commit", fieldTwoPhaseCommit, c.groupCommit)
	case c.groupCommit != groupCommitOff && c.labelPrefix != defaultLabelPrefix:
		return fmt.Errorf("field %s: label_prefix cannot be combined with group_commit %s: Doris refuses labels in group commit", fieldLabelPrefix, c.groupCommit)
	case c.partial && c.columns == "":
		return fmt.Errorf("field %s: partial_columns needs columns: the columns each row updates", fieldPartialColumns)
	case c.seqCol != "" && c.format != formatJSON:
		return fmt.Errorf("field %s: sequence_column needs format json", fieldSequenceColumn)
	}
	return nil
}
