package schemameta

import (
	"reflect"
	"testing"
)

func TestDiffNamesAddedAndRemovedColumns(t *testing.T) {
	m := mustNew(t, props(t, ordersDDL), nil)
	cases := []struct {
		columns        []string
		added, removed []string
	}{
		{[]string{"order_id", "status", "amount", "__DORIS_BINLOG_TSO__", "__DORIS_BINLOG_LSN__", "__DORIS_BINLOG_OP__"}, nil, nil},
		{[]string{"ORDER_ID", "amount", "status"}, nil, nil},
		{[]string{"order_id", "status", "amount", "w", "__DORIS_BINLOG_OP__"}, []string{"w"}, nil},
		{[]string{"order_id", "amount"}, nil, []string{"status"}},
		{[]string{"order_id", "amount", "note"}, []string{"note"}, []string{"status"}},
	}
	for _, c := range cases {
		added, removed := m.Diff(c.columns)
		if !reflect.DeepEqual(added, c.added) || !reflect.DeepEqual(removed, c.removed) {
			t.Errorf("Diff(%v) = %v, %v; want %v, %v", c.columns, added, removed, c.added, c.removed)
		}
	}
}
