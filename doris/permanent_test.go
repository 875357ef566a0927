package doris

import (
	"errors"
	"fmt"
	"testing"
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
