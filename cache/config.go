package cache

import (
	"crypto/tls"
	"fmt"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

// Config is a parsed doris cache config.
type Config struct {
	JDBC        *doris.JDBCURL
	Username    string
	Password    string
	TLS         *tls.Config // nil: plaintext
	DB, Table   string
	CreateTable bool
	Backoff     doris.BackoffPolicy // per operation; zero: the spec's default
}

func configFromParsed(pc *service.ParsedConfig) (Config, error) {
	var c Config
	raw, err := pc.FieldString(fieldJDBCURL)
	if err != nil {
		return c, err
	}
	// ParseJDBCURL redacts passwords from its own errors.
	if c.JDBC, err = doris.ParseJDBCURL(raw); err != nil {
		return c, fmt.Errorf("cache %s: %s: %w", Name, fieldJDBCURL, err)
	}
	if c.Username, err = pc.FieldString(fieldUsername); err != nil {
		return c, err
	}
	if c.Password, err = pc.FieldString(fieldPassword); err != nil {
		return c, err
	}
	tlsConf, enabled, err := pc.FieldTLSToggled(fieldTLS)
	if err != nil {
		return c, fmt.Errorf("cache %s: %s: %w", Name, fieldTLS, err)
	}
	if enabled {
		c.TLS = tlsConf
	}
	table, err := pc.FieldString(fieldTable)
	if err != nil {
		return c, err
	}
	if c.DB, c.Table, err = doris.ParseTableIdentifier(table); err != nil {
		return c, fmt.Errorf("cache %s: %s must be db.table, got %q: %w", Name, fieldTable, table, err)
	}
	if c.CreateTable, err = pc.FieldBool(fieldCreateTable); err != nil {
		return c, err
	}
	b, err := pc.FieldBackOff(fieldBackoff)
	if err != nil {
		return c, err
	}
	// Benthos parses the field into the library's type; the cache waits
	// as every other retry loop of the bundle does.
	c.Backoff = doris.BackoffPolicy{Base: b.InitialInterval, Max: b.MaxInterval, MaxElapsed: b.MaxElapsedTime}
	return c, nil
}

// FromParsed builds the cache from a config parsed with Spec, for tests and
// embedding; log may be nil.
func FromParsed(pc *service.ParsedConfig, log *service.Logger) (*Cache, error) {
	c, err := configFromParsed(pc)
	if err != nil {
		return nil, err
	}
	return New(c, log)
}
