package doris

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"net"
	"strconv"
	"strings"
	"testing"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/memory"
	"github.com/dolthub/go-mysql-server/server"
	gsql "github.com/dolthub/go-mysql-server/sql"
)

func TestOffsetInsertSQL(t *testing.T) {
	want := "INSERT INTO `ops`.`flink_source_offsets` (`consumer_id`, `offset_timestamp`, `update_time`) VALUES (?, ?, CURRENT_TIMESTAMP(3))"
	if got := OffsetInsertSQL("ops", "flink_source_offsets"); got != want {
		t.Fatalf("got %q", got)
	}
}

func TestNewOffsetPublisherValidation(t *testing.T) {
	j, err := ParseJDBCURL("jdbc:mysql://127.0.0.1:9030")
	if err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"offsets", "a.b.c", ""} {
		_, err := NewOffsetPublisher(j, "root", "", nil, table, "c1")
		if err == nil || !strings.HasPrefix(err.Error(), "Offset table must use database.table format") {
			t.Errorf("%q: got %v", table, err)
		}
	}
	if _, err := NewOffsetPublisher(j, "root", "", nil, "ops.o", ""); err == nil {
		t.Error("empty consumer id accepted")
	}
	if _, err := NewOffsetPublisher(nil, "root", "", nil, "ops.o", "c1"); err == nil {
		t.Error("nil jdbc accepted")
	}
	bad, _ := ParseJDBCURL("jdbc:mysql://127.0.0.1:9030?connectTimeout=x")
	if _, err := NewOffsetPublisher(bad, "root", "", nil, "ops.o", "c1"); err == nil {
		t.Error("bad connectTimeout accepted")
	}
}

// recordingDriver answers every Exec with a fixed rows-affected count.
type recordingDriver struct {
	affected int64
	query    string
	args     []driver.NamedValue
}

func (d *recordingDriver) Connect(context.Context) (driver.Conn, error) {
	return &recordingConn{d}, nil
}
func (d *recordingDriver) Driver() driver.Driver { return nil }

type recordingConn struct{ d *recordingDriver }

func (c *recordingConn) Prepare(string) (driver.Stmt, error) { return nil, errors.New("no prepare") }
func (c *recordingConn) Close() error                        { return nil }
func (c *recordingConn) Begin() (driver.Tx, error)           { return nil, errors.New("no tx") }
func (c *recordingConn) ExecContext(_ context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	c.d.query, c.d.args = q, args
	return driver.RowsAffected(c.d.affected), nil
}

func TestPublishChecksRowsAffectedAndTimestamp(t *testing.T) {
	d := &recordingDriver{affected: 0}
	p := &OffsetPublisher{db: sql.OpenDB(d), name: "ops.o", consumerID: "c1", stmt: OffsetInsertSQL("ops", "o")}
	defer p.Close()
	err := p.Publish(testCtx(t), "2026-09-14 10:10:00")
	if err == nil || !strings.Contains(err.Error(), "Doris offset INSERT did not update a row") {
		t.Fatalf("got %v", err)
	}
	if d.query != OffsetInsertSQL("ops", "o") || len(d.args) != 2 || d.args[0].Value != "c1" || d.args[1].Value != "2026-09-14 10:10:00" {
		t.Fatalf("sent %q %v", d.query, d.args)
	}
	d.affected = 1
	if err := p.Publish(testCtx(t), "2026-09-14 10:10:00"); err != nil {
		t.Fatal(err)
	}
	if err := p.Publish(testCtx(t), "2026-09-14 10:10"); err == nil {
		t.Fatal("non-strict timestamp accepted")
	}
}

// startMySQL serves an in-memory go-mysql-server database "ops" on loopback.
func startMySQL(t *testing.T) string {
	t.Helper()
	pro := memory.NewDBProvider(memory.NewDatabase("ops"))
	engine := sqle.NewDefault(pro)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.NewServer(server.Config{Protocol: "tcp", Listener: l}, engine, gsql.NewContext, memory.NewSessionBuilder(pro), nil)
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Start() }()
	t.Cleanup(func() { _ = srv.Close() })
	return l.Addr().String()
}

func TestPublishOverMySQLProtocol(t *testing.T) {
	addr := startMySQL(t)
	host, port, _ := net.SplitHostPort(addr)
	j, err := ParseJDBCURL("jdbc:mysql://" + host + ":" + port + "/ops?connectTimeout=5000&socketTimeout=10000")
	if err != nil {
		t.Fatal(err)
	}
	if strconv.Itoa(j.Port) != port {
		t.Fatalf("port %d", j.Port)
	}
	p, err := NewOffsetPublisher(j, "root", "", nil, "ops.offsets", "consumer 'one'")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx := testCtx(t)
	if _, err := p.db.ExecContext(ctx, "CREATE TABLE offsets (consumer_id VARCHAR(256) NOT NULL, offset_timestamp DATETIME NOT NULL, update_time DATETIME(3) NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	for _, ts := range []string{"2026-09-14 10:05:00", "2026-09-14 10:10:00"} {
		if err := p.Publish(ctx, ts); err != nil {
			t.Fatalf("publish %s: %v", ts, err)
		}
	}
	var id, ts string
	err = p.db.QueryRowContext(ctx, "SELECT consumer_id, CAST(offset_timestamp AS CHAR) FROM offsets ORDER BY offset_timestamp DESC LIMIT 1").Scan(&id, &ts)
	if err != nil {
		t.Fatal(err)
	}
	if id != "consumer 'one'" || !strings.HasPrefix(ts, "2026-09-14 10:10:00") {
		t.Fatalf("stored %q %q", id, ts)
	}
}
