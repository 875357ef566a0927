package doris

import (
	"crypto/tls"

	"github.com/go-sql-driver/mysql"
)

// MySQLConfig is the go-sql-driver config for a parsed jdbc_url, built by the
// same rules as the offset table's connection (connectTimeout and
// socketTimeout parameters, client-side interpolation, TLS), for other
// packages that talk to Doris over the MySQL protocol.
func MySQLConfig(j *JDBCURL, user, password string, tlsConf *tls.Config) (*mysql.Config, error) {
	return offsetMySQLConfig(j, user, password, tlsConf)
}
