package doris

import "testing"

// The snapshot clause goes between the table and TABLET(...), the order
// Doris's grammar accepts, and the TSO is an integer literal.
func TestSnapshotSQLAsOf(t *testing.T) {
	got := SnapshotSQLAsOf("sales", "or`ders", []string{"id"}, 470950655820038143, []int64{1, 2}, "id > 3")
	want := "SELECT `id` FROM `sales`.`or``ders` FOR VERSION AS OF 470950655820038143  TABLET(1,2)  WHERE id > 3"
	if got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	if got := SnapshotSQLWithCommitTSO("s", "t", nil, nil, ""); got != "SELECT *, `__DORIS_COMMIT_TSO_COL__` FROM `s`.`t`" {
		t.Fatalf("commit TSO read: %q", got)
	}
	if x := LastTSOBefore(1000); x != 1000<<18-1 || PhysicalMs(x) != 999 {
		t.Fatalf("LastTSOBefore(1000) = %d", x)
	}
}
