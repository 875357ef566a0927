package input

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

// TestDefaultCheckpointKeys: one table is named readably, with every byte
// outside [a-z0-9_] escaped so that no two tables share a key; any other
// selection is doris_binlog_sel_ and the SHA-256 of its canonical text.
// The same table named in another form keeps its key.
func TestDefaultCheckpointKeys(t *testing.T) {
	sum := func(text string) string {
		h := sha256.Sum256([]byte(text))
		return "doris_binlog_sel_" + hex.EncodeToString(h[:])
	}
	for _, tc := range []struct {
		name       string
		over       map[string]string
		key, prior string
	}{
		{"one table", with(incr), "doris_binlog_shop.orders", "doris_binlog_shop_orders"},
		{"one table, quoted", with(incr, "table_identifier", "'`shop`.`orders`'"), "doris_binlog_shop.orders", "doris_binlog_shop_orders"},
		{"one table in a list", with(incr, "table_identifier", "-", "tables", "[shop.orders]"), "doris_binlog_shop.orders", "doris_binlog_shop_orders"},
		{"dot inside a name", with(incr, "table_identifier", "'`my.db`.t'"), "doris_binlog_my-056db.t", "doris_binlog_my.db_t"},
		{"underscore in db", with(incr, "table_identifier", "a_b.c"), "doris_binlog_a_b.c", "doris_binlog_a_b_c"},
		{"underscore in table", with(incr, "table_identifier", "a.b_c"), "doris_binlog_a.b_c", "doris_binlog_a_b_c"},
		{"upper case and dash", with(incr, "table_identifier", "My-Db.T"), "doris_binlog_-my---db.-t", "doris_binlog_My-Db_T"},
		{"two tables", with(incr, "table_identifier", "-", "tables", "[shop.b, shop.a]"), sum("tables shop.a,shop.b"), "doris_binlog_" + sum("tables shop.a,shop.b")[17:29]},
		{"two tables, other order", with(incr, "table_identifier", "-", "tables", "['`shop`.a', shop.b]"), sum("tables shop.a,shop.b"), "doris_binlog_" + sum("tables shop.a,shop.b")[17:29]},
		{"patterns", with(incr, "table_identifier", "-", "include", `['shop\..*']`, "exclude", `['shop\.tmp_.*']`),
			sum(`include ["shop\\..*"] exclude ["shop\\.tmp_.*"]`), "doris_binlog_" + sum(`include ["shop\\..*"] exclude ["shop\\.tmp_.*"]`)[17:29]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := parseInput(t, configYAML(tc.over))
			if err != nil {
				t.Fatal(err)
			}
			if c.CheckpointKey != tc.key || c.LegacyCheckpointKey != tc.prior {
				t.Errorf("key %q legacy %q, want %q and %q", c.CheckpointKey, c.LegacyCheckpointKey, tc.key, tc.prior)
			}
		})
	}
}

// TestConfiguredKeyHasNoLegacyKey: a key the user chose is never carried
// over from an earlier build's default.
func TestConfiguredKeyHasNoLegacyKey(t *testing.T) {
	for _, over := range []map[string]string{
		with(incr, "checkpoint_cache_key", "mine"),
		with(incr, "scan_mode", "latest", "binlog_consumer_id", "c1", "binlog_offset_table", "o.t", "jdbc_url", "jdbc:mysql://h:9030"),
	} {
		c, err := parseInput(t, configYAML(over))
		if err != nil {
			t.Fatal(err)
		}
		if c.LegacyCheckpointKey != "" {
			t.Errorf("key %q has the legacy key %q", c.CheckpointKey, c.LegacyCheckpointKey)
		}
	}
}

// TestSelectionFieldErrors: each refusal names the field (and the entry)
// at fault.
func TestSelectionFieldErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		over  map[string]string
		field string
		want  []string
	}{
		{"open quote", with(nil, "table_identifier", "'`shop.orders'"), "table_identifier", []string{"must be db.table"}},
		{"list entry open quote", with(nil, "table_identifier", "-", "tables", "[shop.a, '`shop.b']"), "tables", []string{"entry 1:", "must be db.table"}},
		{"same table in two forms", with(nil, "table_identifier", "-", "tables", "[shop.a, '`shop`.`a`']"), "tables", []string{"entry 1:", "shop.a is listed twice"}},
		{"bad include", with(nil, "table_identifier", "-", "include", `['(']`), "include", []string{"pattern 0", "not a valid regular expression"}},
		{"exclude alone", with(nil, "exclude", `['x']`), "exclude", []string{"only valid together with include"}},
		{"table and include", with(nil, "include", `['x']`), "table_identifier", []string{"exactly one of table_identifier, tables and include"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseInput(t, configYAML(tc.over))
			if err == nil {
				t.Fatal("accepted")
			}
			if !strings.HasPrefix(err.Error(), "field "+tc.field+": ") {
				t.Errorf("error %q does not start with field %s", err, tc.field)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// TestEmptyListsCountAsUnset: Benthos fills absent lists with [], so an
// empty tables or exclude list is as if not written.
func TestEmptyListsCountAsUnset(t *testing.T) {
	c, err := parseInput(t, configYAML(with(nil, "tables", "[]", "exclude", "[]")))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Selection.fixed) != 1 || c.Selection.fixed[0].key != "shop.orders" || c.Selection.byPattern() {
		t.Errorf("selection %+v, want the one table_identifier", c.Selection)
	}
}
