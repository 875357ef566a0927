// Package cache holds the `doris` cache resource: a Benthos cache whose
// entries live in a Doris UNIQUE KEY table, reached over the MySQL protocol.
// It is the recommended checkpoint store for doris_binlog in production: the
// position lives in the Doris cluster the user already runs and backs up, so
// a pipeline restarted on any host resumes from it.
//
// Importing the package registers the cache in the global environment; builds
// that want it blank-import it, as cmd/rpconnect-doris does.
package cache

import (
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

// Name is the cache's name in a config.
const Name = "doris"

const (
	fieldJDBCURL     = "jdbc_url"
	fieldUsername    = "username"
	fieldPassword    = "password"
	fieldTLS         = "tls"
	fieldTable       = "table"
	fieldCreateTable = "create_table"
	fieldBackoff     = "backoff"
)

const specDescription = `Each key is one row of a Doris table with a UNIQUE KEY on the key, so a ` + "`Set`" + ` is an upsert. Use it as the ` + "`checkpoint_cache`" + ` of ` + "`doris_binlog`" + `: the checkpoint is kept in Doris itself, nothing is kept on local disk, and a pipeline started on any machine with the same ` + "`checkpoint_cache_key`" + ` resumes where the last one stopped. This is the recommended checkpoint store in production.

With ` + "`create_table: true`" + ` (the default) the table is created on the first connection if it is missing:

[source,sql]
----
` + ddlDoc + `
----

The database must exist. The value column is a ` + "`STRING`" + `, so a checkpoint of many tables fits: Doris caps a STRING value at the BE setting ` + "`string_type_length_soft_limit_bytes`" + ` (1 MiB by default). Values must be UTF-8 text, which checkpoints always are. ` + "`replication_num`" + ` is left to the cluster default (3); on a cluster with fewer backends create the table yourself with the DDL above and ` + "`PROPERTIES (\"replication_num\" = \"1\")`" + `.

== Consistency

A ` + "`Set`" + ` returns only once the next ` + "`Get`" + ` on any FE sees the value:

- the table is merge-on-write (` + "`enable_unique_key_merge_on_write`" + `), so the newest committed row of a key is the one every read returns, with no merge at read time;
- an ` + "`INSERT ... VALUES`" + ` is a transaction of its own that Doris commits and publishes before it answers;
- every session sets ` + "`enable_strong_consistency_read = true`" + `, so a read on a follower FE first catches up with the master's journal;
- and the ` + "`Set`" + ` reads the row back before it returns. If the INSERT fails, or the row read back does not hold the value (for example an INSERT that answered COMMITTED but is not yet VISIBLE), the ` + "`Set`" + ` returns an error, so the input's ack fails and its position does not move.

Connection errors are retried with ` + "`" + fieldBackoff + "`" + `. Errors that cannot get better by waiting (access denied, unknown database or table) are returned at once. Doris has no row locks, so ` + "`Add`" + ` is a read followed by an insert: it fails with the cache's key-exists error when the key is there, but two processes adding the same key at the same moment can both succeed. The input only uses ` + "`Get`" + ` and ` + "`Set`" + `. TTLs are ignored: entries never expire.

The password and the connection string never appear in logs or errors.`

// defaultBackoff is the backoff field's default.
var defaultBackoff = doris.BackoffPolicy{Base: 200 * time.Millisecond, Max: 5 * time.Second, MaxElapsed: 60 * time.Second}

// Spec describes the cache's config.
func Spec() *service.ConfigSpec {
	defaults := backoff.NewExponentialBackOff()
	defaults.InitialInterval, defaults.MaxInterval, defaults.MaxElapsedTime = defaultBackoff.Base, defaultBackoff.Max, defaultBackoff.MaxElapsed
	return service.NewConfigSpec().
		Stable().
		Categories("Services").
		Summary("Keeps entries, such as doris_binlog checkpoints, in an Apache Doris UNIQUE KEY table over the MySQL protocol.").
		Description(specDescription).
		Fields(
			service.NewStringField(fieldJDBCURL).
				Description("MySQL-protocol address of a Doris FE, `jdbc:mysql://host[:port][/db][?k=v]`, parsed by the same code and rules as the `doris_binlog` input's `jdbc_url`: one host and its port (the FE query port, 9030 by default), `connectTimeout` and `socketTimeout` (milliseconds) are honoured. Any FE works; reads and writes are consistent across FEs. Credentials go in `username` and `password`: user info in the URL is refused, and an `@` in a parameter value must be written `%40`. The field is a secret because parameters may carry one; messages show it with user info and every parameter value replaced by `xxxxx`.").
				Example("jdbc:mysql://fe1:9030").Example("jdbc:mysql://fe1:9030/ops?connectTimeout=5000").
				Secret(),
			service.NewStringField(fieldUsername).
				Description("Doris user. It needs SELECT and LOAD on the table, and CREATE on the database when `create_table` is true.").
				Default("root"),
			service.NewStringField(fieldPassword).
				Description("Password of `username`.").
				Default("").Secret(),
			service.NewTLSToggledField(fieldTLS).
				Description("TLS for the MySQL protocol connection, as in the `doris_binlog` input."),
			service.NewStringField(fieldTable).
				Description("The table, `db.table`. Backticks quote names with dots or other special characters.").
				Example("ops.rpconnect_checkpoints"),
			service.NewBoolField(fieldCreateTable).
				Description("Create the table (with the DDL above) on the first connection if it does not exist.").
				Default(true),
			service.NewBackOffField(fieldBackoff, false, defaults).
				Description("Retries of connection errors within one operation. The wait doubles from `initial_interval` up to `max_interval`, each wait jittered into its upper half. When `max_elapsed_time` runs out the operation fails; the `doris_binlog` input then tries its checkpoint `Set` again with the next ack, and stops after 5 minutes of failures. `max_elapsed_time` must be positive: an operation never retries without end. Each attempt is bounded too, by `connectTimeout` plus three times `socketTimeout` of `jdbc_url` (30s + 3 × 60s by default); an attempt that runs out counts as a connection error. What retrying cannot fix is not retried and is reported as permanent, so that the input stops at once: access denied, an unknown database, table or column, and a value Doris rejects (longer than the column, or than `string_type_length_soft_limit_bytes` for the STRING column).").
				Advanced().
				LintRule(`root = if this.max_elapsed_time.or("1m").parse_duration() <= 0 { [ "backoff.max_elapsed_time must be positive: with no limit an operation against an unreachable Doris never ends" ] }`),
		).
		Example("Checkpoints in Doris", "The recommended production setup: the input's position lives in the cluster it reads.", `
cache_resources:
  - label: checkpoints
    doris:
      jdbc_url: jdbc:mysql://fe1:9030
      username: rpconnect
      password: ${DORIS_PASSWORD}
      table: ops.rpconnect_checkpoints

input:
  doris_binlog:
    fenodes: fe1:8030
    table_identifier: shop.orders
    username: rpconnect
    password: ${DORIS_PASSWORD}
    scan_mode: initial
    checkpoint_cache: checkpoints
    checkpoint_cache_key: shop_orders_to_kafka
`)
}

func init() {
	service.MustRegisterCache(Name, Spec(), func(conf *service.ParsedConfig, mgr *service.Resources) (service.Cache, error) {
		c, err := configFromParsed(conf)
		if err != nil {
			return nil, err
		}
		return New(c, mgr.Logger())
	})
}
