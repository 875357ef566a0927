package sqlengine

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"database/sql"
	"errors"
	"math/big"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// serve starts the MySQL endpoint on a loopback port and returns its address.
func serve(t *testing.T, eng *Engine, tlsConf *tls.Config) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- eng.ServeMySQL(l, tlsConf) }()
	t.Cleanup(func() {
		_ = eng.CloseMySQL()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("ServeMySQL did not return after CloseMySQL")
		}
	})
	return l.Addr().String()
}

func openDB(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestMySQLWireDDLDMLIncr(t *testing.T) {
	clock := &testClock{now: time.Date(2026, 9, 14, 9, 0, 0, 0, time.UTC)}
	eng, _ := newTestEngine(t, clock)
	addr := serve(t, eng, nil)
	ctx := testCtx(t)

	if _, err := openDB(t, "root:wrong@tcp("+addr+")/").ExecContext(ctx, "SELECT 1"); err == nil {
		t.Fatal("wrong password accepted")
	}
	db := openDB(t, "root:secret@tcp("+addr+")/?time_zone=%27UTC%27")
	db.SetMaxOpenConns(1)
	for _, q := range []string{"CREATE DATABASE sales", "USE sales", ordersDDL} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	clock.Set(time.Date(2026, 9, 14, 10, 0, 0, 0, time.UTC))
	res, err := db.ExecContext(ctx, "INSERT INTO orders VALUES (1, 'created', 100.00), (2, 'created', 200.00)")
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 2 {
		t.Fatalf("RowsAffected = %d", n)
	}
	// Prepared statement with bound values, as the offset publisher sends it.
	if _, err := db.ExecContext(ctx, "INSERT INTO orders (order_id, status, amount) VALUES (?, ?, ?)", 3, "it's", "300.50"); err != nil {
		t.Fatal(err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, "UPDATE orders SET status = 'paid' WHERE order_id = 1"); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	clock.Set(time.Date(2026, 9, 14, 10, 30, 0, 0, time.UTC))

	rows, err := db.QueryContext(ctx, "SELECT order_id, status, amount, __DORIS_BINLOG_OP__ AS op FROM `sales`.`orders`@incr('startTimestamp' = '2026-09-14 10:00:00', 'endTimestamp' = '2026-09-14 10:30:00', 'incrementType' = 'DETAIL') ORDER BY __DORIS_BINLOG_TSO__, __DORIS_BINLOG_LSN__, __DORIS_BINLOG_OP__")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var id int64
		var status, amount string
		var op int8
		if err := rows.Scan(&id, &status, &amount, &op); err != nil {
			t.Fatal(err)
		}
		got = append(got, strings.Join([]string{big.NewInt(id).String(), status, amount, big.NewInt(int64(op)).String()}, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	want := []string{"1|created|100.00|0", "2|created|200.00|0", "3|it's|300.50|0", "1|created|100.00|2", "1|paid|100.00|3"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("@incr over MySQL:\n got %v\nwant %v", got, want)
	}

	var port string
	var cols []string
	r, err := db.QueryContext(ctx, "show frontends")
	if err != nil {
		t.Fatal(err)
	}
	cols, _ = r.Columns()
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for r.Next() {
		if err := r.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		port = string(vals[6].([]byte))
	}
	r.Close()
	if cols[6] != "ArrowFlightSqlPort" || port != "29747" {
		t.Fatalf("show frontends: %v port %q", cols, port)
	}

	// A database in the DSN arrives as COM_INIT_DB.
	var count int
	if err := openDB(t, "root:secret@tcp("+addr+")/sales").QueryRowContext(ctx, "SELECT COUNT(*) FROM orders").Scan(&count); err != nil || count != 3 {
		t.Fatalf("COUNT(*) with DSN database: %d %v", count, err)
	}

	_, err = db.ExecContext(ctx, "SELECT * FROM orders@incr('nope' = 'x')")
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Message != "errCode = 2, detailMessage = Unsupported parameter in incr query" {
		t.Fatalf("error over MySQL = %v", err)
	}
	_, err = db.ExecContext(ctx, "SELECT * FROM orders@incr('endTimestamp' = '2099-01-01 00:00:00')")
	if !errors.As(err, &me) || me.Number != 5100 || !strings.HasPrefix(me.Message, "ERR_INCR_WINDOW_NOT_READY") {
		t.Fatalf("window error over MySQL = %v", err)
	}
}

func TestMySQLWireTLS(t *testing.T) {
	eng, _ := newTestEngine(t, nil)
	cert := selfSigned(t)
	addr := serve(t, eng, &tls.Config{Certificates: []tls.Certificate{cert}})
	pool := x509.NewCertPool()
	pool.AddCert(cert.Leaf)
	if err := mysql.RegisterTLSConfig("sqlengine-test", &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"}); err != nil {
		t.Fatal(err)
	}
	db := openDB(t, "root:secret@tcp("+addr+")/?tls=sqlengine-test")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var v int
	if err := db.QueryRowContext(ctx, "SELECT 41 + 1").Scan(&v); err != nil || v != 42 {
		t.Fatalf("query over TLS: %v %v", v, err)
	}
	var cipher, status string
	if err := db.QueryRowContext(ctx, "SHOW STATUS LIKE 'Ssl_cipher'").Scan(&cipher, &status); err != nil {
		// Not every GMS build reports Ssl_cipher; the TLS handshake above is the real check.
		t.Logf("Ssl_cipher not available: %v", err)
	}
}

func selfSigned(t *testing.T) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "dorissim"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA:                  true,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}
}
