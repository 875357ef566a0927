package doris

import (
	"reflect"
	"strings"
	"testing"
)

// showPartitionsMeta is the head of Doris's SHOW PARTITIONS header
// (PartitionsProcDir.TITLE_NAMES); the parser needs only the first two.
const showPartitionsMeta = `[{"name":"PartitionId","type":"CHAR"},{"name":"PartitionName","type":"CHAR"},` +
	`{"name":"VisibleVersion","type":"CHAR"},{"name":"State","type":"CHAR"}]`

func TestPartitionsListsIDsAndNames(t *testing.T) {
	f := statementFE(t, 1, func(stmt string) string {
		switch stmt {
		case "SHOW PARTITIONS FROM `sales`.`ev``x`":
			return resultSet(showPartitionsMeta, `[["180060","p20080101000000","2","NORMAL"],[180039,"p20120101000000","2","NORMAL"]]`)
		case "SHOW PARTITIONS FROM `sales`.`auto`":
			return resultSet(showPartitionsMeta, `[]`)
		}
		return `{"code":1,"msg":"errCode = 2, detailMessage = Unknown table 'missing'"}`
	})
	c := testClient(t, ClientConfig{Retries: 1}, f.addr())
	got, err := Partitions(testCtx(t), c, "sales", "ev`x")
	if err != nil {
		t.Fatal(err)
	}
	want := []Partition{{ID: 180060, Name: "p20080101000000"}, {ID: 180039, Name: "p20120101000000"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if got, err := Partitions(testCtx(t), c, "sales", "auto"); err != nil || len(got) != 0 {
		t.Fatalf("AUTO table without partitions: %v %v", got, err)
	}
	_, err = Partitions(testCtx(t), c, "sales", "missing")
	if err == nil || !strings.Contains(err.Error(), "show partitions of sales.missing") || !strings.Contains(err.Error(), "Unknown table") {
		t.Fatalf("missing table: %v", err)
	}
}

func TestParsePartitionsRejectsPartialLists(t *testing.T) {
	for _, tc := range []struct{ meta, rows, want string }{
		{`[{"name":"PartitionName","type":"CHAR"}]`, `[["p1"]]`, "lacks the PartitionId or PartitionName column"},
		{showPartitionsMeta, `[["x1","p1","1","NORMAL"]]`, `PartitionId "x1" is not a positive integer`},
		{showPartitionsMeta, `[["0","p1","1","NORMAL"]]`, `PartitionId "0" is not a positive integer`},
		{showPartitionsMeta, `[[null,"p1","1","NORMAL"]]`, "row 1 has no PartitionId"},
		{showPartitionsMeta, `[["7",null,"1","NORMAL"]]`, "(PartitionId 7) has no PartitionName"},
		{showPartitionsMeta, `[["7","p1","1","NORMAL"],["7","p2","1","NORMAL"]]`, "lists PartitionId 7 twice"},
		{showPartitionsMeta, `[["7"]]`, "has no PartitionName"},
	} {
		res, err := ParseStatementResponse([]byte(resultSet(tc.meta, tc.rows)))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParsePartitions(res); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.rows, err, tc.want)
		}
	}
	if _, err := ParsePartitions(nil); err == nil {
		t.Fatal("nil result accepted")
	}
}
