package cache

import (
	"strings"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

// Column names of the cache table.
const (
	colKey     = "cache_key"
	colValue   = "cache_value"
	colUpdated = "update_time"
	// maxKeyBytes is the key column's VARCHAR length; Doris counts bytes.
	maxKeyBytes = 512
)

// ValueLimitBytes is the most a value of the STRING column holds on a
// cluster with the default BE setting string_type_length_soft_limit_bytes;
// a longer value fails the write.
const ValueLimitBytes = 1 << 20

// ddlDoc is the documented DDL; createTableSQL puts the real name in place
// of the placeholder.
const ddlDoc = "CREATE TABLE IF NOT EXISTS <db>.<table> (\n" +
	"  `cache_key`   VARCHAR(512) NOT NULL COMMENT 'Benthos cache key, e.g. the checkpoint_cache_key',\n" +
	"  `cache_value` STRING       NOT NULL COMMENT 'the value, e.g. a doris_binlog checkpoint (JSON)',\n" +
	"  `update_time` DATETIME(3)  NOT NULL COMMENT 'when the value was written'\n" +
	")\n" +
	"UNIQUE KEY(`cache_key`)\n" +
	"DISTRIBUTED BY HASH(`cache_key`) BUCKETS 1\n" +
	"PROPERTIES (\"enable_unique_key_merge_on_write\" = \"true\")"

const ddlPlaceholder = "<db>.<table>"

func createTableSQL(db, table string) string {
	return strings.Replace(ddlDoc, ddlPlaceholder, doris.QualifiedTable(db, table), 1)
}

// statements are the cache's SQL for one table; values are bound with ?
// and interpolated by the driver, which escapes them.
type statements struct {
	get, insert, del string
}

func newStatements(db, table string) statements {
	t := doris.QualifiedTable(db, table)
	return statements{
		get: "SELECT `" + colValue + "` FROM " + t + " WHERE `" + colKey + "` = ?",
		insert: "INSERT INTO " + t + " (`" + colKey + "`, `" + colValue + "`, `" + colUpdated + "`) " +
			"VALUES (?, ?, CURRENT_TIMESTAMP(3))",
		del: "DELETE FROM " + t + " WHERE `" + colKey + "` = ?",
	}
}
