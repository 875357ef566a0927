package doris

import (
	"context"
	"crypto/tls"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/go-sql-driver/mysql"
)

const (
	offsetConnectTimeout = 30 * time.Second
	offsetIOTimeout      = 60 * time.Second
)

// OffsetPublisher records the end of the latest finished window in a Doris
// offset table over the MySQL protocol (observe-only; never read back).
type OffsetPublisher struct {
	db         *sql.DB
	name       string // db.tbl, for errors
	consumerID string
	stmt       string
}

// NewOffsetPublisher prepares a publisher for table ("database.table") and
// consumerID. It does not connect until the first Publish.
func NewOffsetPublisher(jdbc *JDBCURL, user, password string, tlsConf *tls.Config, table, consumerID string) (*OffsetPublisher, error) {
	if jdbc == nil {
		return nil, errors.New("offset publisher: jdbc_url is required")
	}
	db, tbl, err := ParseTableIdentifier(table)
	if err != nil {
		return nil, fmt.Errorf("Offset table must use database.table format: %q", table)
	}
	if consumerID == "" {
		return nil, errors.New("offset publisher: consumer id must not be empty")
	}
	cfg, err := offsetMySQLConfig(jdbc, user, password, tlsConf)
	if err != nil {
		return nil, fmt.Errorf("offset publisher for %s.%s: %w", db, tbl, err)
	}
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("offset publisher for %s.%s: %w", db, tbl, err)
	}
	sqlDB := sql.OpenDB(conn)
	sqlDB.SetMaxOpenConns(1)
	sqlDB.SetMaxIdleConns(1)
	sqlDB.SetConnMaxIdleTime(5 * time.Minute)
	return &OffsetPublisher{
		db:         sqlDB,
		name:       db + "." + tbl,
		consumerID: consumerID,
		stmt:       OffsetInsertSQL(db, tbl),
	}, nil
}

// OffsetInsertSQL is the reference connector's offset upsert.
func OffsetInsertSQL(db, table string) string {
	return "INSERT INTO " + QualifiedTable(db, table) +
		" (`consumer_id`, `offset_timestamp`, `update_time`) VALUES (?, ?, CURRENT_TIMESTAMP(3))"
}

// offsetMySQLConfig builds the driver config. Placeholders are interpolated
// client-side because Doris's MySQL endpoint (and the simulator's) may not
// support server-side prepared statements; the driver escapes the values.
func offsetMySQLConfig(j *JDBCURL, user, password string, tlsConf *tls.Config) (*mysql.Config, error) {
	connectTO, err := j.durationParam("connectTimeout", offsetConnectTimeout)
	if err != nil {
		return nil, err
	}
	ioTO, err := j.durationParam("socketTimeout", offsetIOTimeout)
	if err != nil {
		return nil, err
	}
	cfg := mysql.NewConfig()
	cfg.User = user
	cfg.Passwd = password
	cfg.Net = "tcp"
	cfg.Addr = j.Addr()
	cfg.DBName = j.Database
	cfg.Timeout = connectTO
	cfg.ReadTimeout = ioTO
	cfg.WriteTimeout = ioTO
	cfg.InterpolateParams = true
	cfg.AllowNativePasswords = true
	if tlsConf != nil {
		// Set directly rather than through the driver's global TLS
		// registry, so publishers never leak or collide on config names.
		cfg.TLS = tlsConf.Clone()
	}
	return cfg, nil
}

// Publish upserts offsetTimestamp (strict yyyy-MM-dd HH:mm:ss) for the
// consumer.
func (p *OffsetPublisher) Publish(ctx context.Context, offsetTimestamp string) error {
	if err := ValidateTimestamp(offsetTimestamp); err != nil {
		return fmt.Errorf("publish offset to %s: %w", p.name, err)
	}
	res, err := p.db.ExecContext(ctx, p.stmt, p.consumerID, offsetTimestamp)
	if err != nil {
		return fmt.Errorf("publish offset to %s: %w", p.name, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("publish offset to %s: rows affected: %w", p.name, err)
	}
	if n == 0 {
		return fmt.Errorf("publish offset to %s: Doris offset INSERT did not update a row", p.name)
	}
	return nil
}

// Close releases the connection pool.
func (p *OffsetPublisher) Close() error {
	return p.db.Close()
}
