package doris

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// foreignPermanent marks itself the way a package that cannot import doris
// does.
type foreignPermanent struct{ permanent bool }

func (e foreignPermanent) Error() string   { return "foreign" }
func (e foreignPermanent) Permanent() bool { return e.permanent }

func TestPermanentMark(t *testing.T) {
	if Permanent(nil) != nil {
		t.Fatal("Permanent(nil) must stay nil")
	}
	cause := errors.New("operation 7 out of range")
	err := fmt.Errorf("binlog window of db.t: %w", Permanent(cause))
	if !IsPermanent(err) || !errors.Is(err, cause) || err.Error() != "binlog window of db.t: operation 7 out of range" {
		t.Fatalf("wrapped mark: %v (permanent %v)", err, IsPermanent(err))
	}
	if IsPermanent(cause) || IsPermanent(nil) {
		t.Fatal("an unmarked error is not permanent")
	}
	if !IsPermanent(fmt.Errorf("cache: %w", foreignPermanent{true})) || IsPermanent(foreignPermanent{false}) {
		t.Fatal("a Permanent() method in the chain must decide")
	}
}

// TestPermanentFileErrors: a file cache that may not write its file fails
// the same way on every attempt, so every retry loop must stop on it.
func TestPermanentFileErrors(t *testing.T) {
	for _, err := range []error{
		&fs.PathError{Op: "open", Path: "/ro/ckpt", Err: syscall.EROFS},
		&fs.PathError{Op: "open", Path: "/ckpt", Err: fs.ErrPermission},
		&fs.PathError{Op: "open", Path: "/long", Err: syscall.ENAMETOOLONG},
	} {
		if !IsPermanent(fmt.Errorf("saving the checkpoint: %w", err)) {
			t.Errorf("%v is not permanent", err)
		}
	}
	if IsPermanent(&fs.PathError{Op: "write", Path: "/ckpt", Err: syscall.ENOSPC}) {
		t.Error("a full disk may be freed: it must be retried")
	}
	// A firewall refusing a connection says EPERM too; the network may
	// let it through later.
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.EPERM)}
	if IsPermanent(fmt.Errorf("GET /api/tso: %w", refused)) {
		t.Errorf("%v is a network failure, not a permanent one", refused)
	}
}

// TestRejectedStatement: the FE refusing the statement itself is final; a
// dropped connection or a busy FE is not.
func TestRejectedStatement(t *testing.T) {
	cases := []struct {
		err  error
		want bool
	}{
		{&mysql.MySQLError{Number: 1045, Message: "Access denied for user 'u'"}, true},
		{&mysql.MySQLError{Number: 1146, Message: "Table 'db.t' doesn't exist"}, true},
		{&mysql.MySQLError{Number: 1105, Message: "errCode = 2, detailMessage = the length of input is too long than schema"}, true},
		{&mysql.MySQLError{Number: 1105, Message: "errCode = 2, detailMessage = failed to get tablet"}, false},
		{&mysql.MySQLError{Number: 1203, Message: "Reach limit of connections"}, false},
		{mysql.ErrInvalidConn, false},
		{errors.New("connection refused"), false},
	}
	for _, c := range cases {
		if got := IsRejectedStatement(fmt.Errorf("cache set: %w", c.err)); got != c.want {
			t.Errorf("%v: rejected %v, want %v", c.err, got, c.want)
		}
	}
}
