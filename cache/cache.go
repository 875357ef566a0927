package cache

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/go-sql-driver/mysql"
	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

// Cache is the doris cache. Its methods are safe for concurrent use.
type Cache struct {
	conf  Config
	db    *sql.DB
	stmts statements
	name  string // db.table, for errors and logs
	log   *service.Logger
	retry retrier

	// writeMu serialises writes so that Add's read-then-insert and a Set's
	// read-back see no interleaving from this process.
	writeMu sync.Mutex

	tableMu    sync.Mutex
	tableReady bool
}

// New builds the cache. It does not connect: the first operation does, so a
// stream can start while Doris is still coming up.
func New(conf Config, log *service.Logger) (*Cache, error) {
	mc, err := doris.MySQLConfig(conf.JDBC, conf.Username, conf.Password, conf.TLS)
	if err != nil {
		return nil, fmt.Errorf("cache %s for %s.%s: %w", Name, conf.DB, conf.Table, err)
	}
	// Without this a read on a follower FE may not yet see a value that
	// the master committed for another session.
	mc.Params = map[string]string{"enable_strong_consistency_read": "true"}
	mc.Logger = driverLogger{log}
	conn, err := mysql.NewConnector(mc)
	if err != nil {
		return nil, fmt.Errorf("cache %s for %s.%s: %w", Name, conf.DB, conf.Table, err)
	}
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(4)
	db.SetMaxIdleConns(2)
	db.SetConnMaxIdleTime(5 * time.Minute)
	if conf.Backoff == (doris.BackoffPolicy{}) {
		conf.Backoff = defaultBackoff
	}
	if conf.Backoff.MaxElapsed <= 0 {
		return nil, fmt.Errorf("cache %s for %s.%s: field %s.max_elapsed_time must be positive: with no limit an operation against an unreachable Doris never ends", Name, conf.DB, conf.Table, fieldBackoff)
	}
	name := conf.DB + "." + conf.Table
	return &Cache{
		conf:  conf,
		db:    db,
		stmts: newStatements(conf.DB, conf.Table),
		name:  name,
		log:   log,
		retry: retrier{policy: conf.Backoff, attempt: attemptLimit(mc), log: log, name: name},
	}, nil
}

// attemptLimit bounds one try of an operation: connecting, then at most
// three statements (create table, upsert, read-back), each given the
// socket timeout.
func attemptLimit(mc *mysql.Config) time.Duration {
	return mc.Timeout + 3*max(mc.ReadTimeout, mc.WriteTimeout)
}

// Get returns the value of key, or service.ErrKeyNotFound.
func (c *Cache) Get(ctx context.Context, key string) ([]byte, error) {
	if err := checkKey(key); err != nil {
		return nil, c.opErr("get", key, err)
	}
	var v []byte
	err := c.retry.do(ctx, "get", func(ctx context.Context) error {
		if err := c.ensureTable(ctx); err != nil {
			return err
		}
		return c.db.QueryRowContext(ctx, c.stmts.get, key).Scan(&v)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, service.ErrKeyNotFound
	}
	if err != nil {
		return nil, c.opErr("get", key, err)
	}
	return v, nil
}

// Set upserts key and returns once the value reads back, so that the next
// Get on any FE sees it. The TTL is ignored: entries never expire.
func (c *Cache) Set(ctx context.Context, key string, value []byte, _ *time.Duration) error {
	if err := checkEntry(key, value); err != nil {
		return c.opErr("set", key, doris.Permanent(clipped(err)))
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	return c.set(ctx, key, value)
}

func (c *Cache) set(ctx context.Context, key string, value []byte) error {
	err := c.retry.do(ctx, "set", func(ctx context.Context) error {
		if err := c.ensureTable(ctx); err != nil {
			return err
		}
		conn, err := c.db.Conn(ctx)
		if err != nil {
			return err
		}
		defer conn.Close()
		// Re-sending the same upsert after a lost answer is harmless.
		if _, err := conn.ExecContext(ctx, c.stmts.insert, key, string(value)); err != nil {
			return err
		}
		var got []byte
		switch err := conn.QueryRowContext(ctx, c.stmts.get, key).Scan(&got); {
		case errors.Is(err, sql.ErrNoRows):
			return errUnconfirmed
		case err != nil:
			return err
		case !bytes.Equal(got, value):
			return errUnconfirmed
		}
		return nil
	})
	if err != nil {
		return c.opErr("set", key, err)
	}
	return nil
}

// Add sets key only if it is missing, else returns
// service.ErrKeyAlreadyExists. Doris has no row locks: this is a read then an
// insert, atomic within this process only.
func (c *Cache) Add(ctx context.Context, key string, value []byte, _ *time.Duration) error {
	if err := checkEntry(key, value); err != nil {
		return c.opErr("add", key, err)
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	switch _, err := c.Get(ctx, key); {
	case err == nil:
		return service.ErrKeyAlreadyExists
	case !errors.Is(err, service.ErrKeyNotFound):
		return err
	}
	return c.set(ctx, key, value)
}

// Delete removes key; a missing key is not an error.
func (c *Cache) Delete(ctx context.Context, key string) error {
	if err := checkKey(key); err != nil {
		return c.opErr("delete", key, err)
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	err := c.retry.do(ctx, "delete", func(ctx context.Context) error {
		if err := c.ensureTable(ctx); err != nil {
			return err
		}
		_, err := c.db.ExecContext(ctx, c.stmts.del, key)
		return err
	})
	if err != nil {
		return c.opErr("delete", key, err)
	}
	return nil
}

// Close releases the connections.
func (c *Cache) Close(context.Context) error {
	return c.db.Close()
}

// ensureTable creates the table once per process when create_table is set.
func (c *Cache) ensureTable(ctx context.Context) error {
	if !c.conf.CreateTable {
		return nil
	}
	c.tableMu.Lock()
	defer c.tableMu.Unlock()
	if c.tableReady {
		return nil
	}
	if _, err := c.db.ExecContext(ctx, createTableSQL(c.conf.DB, c.conf.Table)); err != nil {
		return fmt.Errorf("create table: %w", err)
	}
	c.tableReady = true
	c.log.Debugf("doris cache: table %s is ready", c.name)
	return nil
}

func (c *Cache) opErr(op, key string, err error) error {
	if doris.IsRejectedStatement(err) {
		err = doris.Permanent(clipped(err))
	}
	return fmt.Errorf("doris cache %s: %s %q: %w", c.name, op, key, err)
}

func checkKey(key string) error {
	switch {
	case key == "":
		return errors.New("the key is empty")
	case len(key) > maxKeyBytes:
		return fmt.Errorf("the key is %d bytes, more than the %d of the %s column", len(key), maxKeyBytes, colKey)
	case !utf8.ValidString(key):
		return errors.New("the key is not UTF-8 text")
	}
	return nil
}

func checkEntry(key string, value []byte) error {
	if err := checkKey(key); err != nil {
		return err
	}
	if !utf8.Valid(value) {
		return fmt.Errorf("the value is not UTF-8 text, which the %s STRING column needs", colValue)
	}
	return nil
}

// driverLogger sends go-sql-driver's own messages (bad idle connections and
// the like) to the debug log instead of the process's stderr.
type driverLogger struct{ log *service.Logger }

func (d driverLogger) Print(v ...any) {
	if d.log != nil {
		d.log.Debugf("doris cache: mysql driver: %s", fmt.Sprint(v...))
	}
}
