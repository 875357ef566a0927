package output

import (
	"slices"
	"strings"
	"testing"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/input/txmarkers"
)

// doris_load drops doris_binlog's transaction markers: the changes between
// them load as they would without them, under the label their own
// positions and count make, and a batch of markers alone loads nothing.
func TestWriteBatchDropsTransactionMarkers(t *testing.T) {
	f := newFakeDoris(t)
	f.models["shop_replica.orders"] = keysUnique
	o := newTestOutput(t, f, routeYAML)
	batch := service.MessageBatch{
		txmarkers.NewBegin(500, ""),
		change(`{"id":1}`, "shop", "orders", opInsert, 500, 1),
		change(`{"id":2}`, "shop", "orders", opInsert, 500, 2),
		txmarkers.NewCommit(500, "", []txmarkers.TableCount{{Table: "shop.orders", EventCount: 2}}),
	}
	if err := o.WriteBatch(testCtx(t), batch); err != nil {
		t.Fatal(err)
	}
	loads := f.beLoads()
	if len(loads) != 1 {
		t.Fatalf("%d loads, want one for the two changes", len(loads))
	}
	want := []string{`{"id":1,"__DORIS_DELETE_SIGN__":0}`, `{"id":2,"__DORIS_DELETE_SIGN__":0}`}
	if got := lines(loads[0].Body); !slices.Equal(got, want) {
		t.Fatalf("load body %q, want %q", got, want)
	}
	if l := loads[0].Header.Get("label"); !strings.HasSuffix(l, "_500-1i_500-2i_2") {
		t.Fatalf("label %q is not derived from the changes alone (500-1 .. 500-2, 2 messages)", l)
	}
	only := service.MessageBatch{txmarkers.NewBegin(600, ""), txmarkers.NewCommit(600, "", nil)}
	if err := o.WriteBatch(testCtx(t), only); err != nil {
		t.Fatalf("a batch of markers alone: %v", err)
	}
	if n := len(f.beLoads()); n != 1 {
		t.Fatalf("a batch of markers alone made a load (%d loads in all)", n)
	}
}
