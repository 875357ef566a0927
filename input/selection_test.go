package input

import (
	"strings"
	"testing"
)

func TestParseTableNameKeys(t *testing.T) {
	for in, want := range map[string]tableName{
		"shop.orders":         {db: "shop", table: "orders", key: "shop.orders"},
		"`shop`.`orders`":     {db: "shop", table: "orders", key: "shop.orders"},
		"`my.db`.t":           {db: "my.db", table: "t", key: "`my.db`.t"},
		"db.`a``b`":           {db: "db", table: "a`b", key: "db.`a``b`"},
		"数据.表":                {db: "数据", table: "表", key: "数据.表"},
		"`sp ace`.`x`":        {db: "sp ace", table: "x", key: "`sp ace`.x"},
		"Shop.Orders":         {db: "Shop", table: "Orders", key: "Shop.Orders"},
		"`shop`.`orders.v2`":  {db: "shop", table: "orders.v2", key: "shop.`orders.v2`"},
		"`a`.`b`":             {db: "a", table: "b", key: "a.b"},
		"`t``x`.`y`":          {db: "t`x", table: "y", key: "`t``x`.y"},
		"db.table_with_under": {db: "db", table: "table_with_under", key: "db.table_with_under"},
	} {
		got, err := parseTableName(in)
		if err != nil || got != want {
			t.Errorf("parseTableName(%q) = %+v, %v; want %+v", in, got, err, want)
			continue
		}
		// The key names the same table when read back.
		back, err := parseTableName(got.key)
		if err != nil || back != got {
			t.Errorf("key %q of %q reads back as %+v, %v", got.key, in, back, err)
		}
	}
	for _, bad := range []string{"orders", "a.b.c", "`a.b", "a`b.c", "``.b", "a.", ".b", "`a`x.b"} {
		if _, err := parseTableName(bad); err == nil || !strings.Contains(err.Error(), "must be db.table") {
			t.Errorf("parseTableName(%q): %v, want a db.table error", bad, err)
		}
	}
}

func patternSelection(t *testing.T, include, exclude []string) *selection {
	t.Helper()
	inc, err := compilePatterns(fieldInclude, include)
	if err != nil {
		t.Fatal(err)
	}
	exc, err := compilePatterns(fieldExclude, exclude)
	if err != nil {
		t.Fatal(err)
	}
	return &selection{include: inc, exclude: exc}
}

// TestSelectionMatchesWholeNames: patterns match the whole plain
// `db.table` name, and exclude wins over include.
func TestSelectionMatchesWholeNames(t *testing.T) {
	s := patternSelection(t, []string{`shop\..*`, `crm\.a|crm\.b`, `my\.db\.t`}, []string{`shop\.tmp_.*`})
	if !s.byPattern() {
		t.Fatal("a selection by include patterns is not byPattern")
	}
	for _, tc := range []struct {
		db, table string
		want      bool
	}{
		{"shop", "orders", true},
		{"shop", "tmp_1", false}, // excluded
		{"shop", "x_tmp_1", true},
		{"myshop", "orders", false}, // include is anchored at the start
		{"crm", "a", true},
		{"crm", "b", true},
		{"crm", "b2", false}, // the alternation is anchored as a whole
		{"xcrm", "a", false},
		{"my.db", "t", true}, // matched on the plain name, not the quoted key
		{"ops", "audit", false},
	} {
		if got := s.matches(newTableName(tc.db, tc.table)); got != tc.want {
			t.Errorf("matches(%s.%s) = %v, want %v", tc.db, tc.table, got, tc.want)
		}
	}
}

func TestCompilePatternsRefusesUnbalancedGroups(t *testing.T) {
	// "a)|(b" compiles once wrapped in ^(?:...)$, and would then match
	// names starting with a; it is refused on its own.
	_, err := compilePatterns(fieldExclude, []string{`ok\..*`, `a)|(b`})
	if err == nil {
		t.Fatal(`pattern "a)|(b" accepted`)
	}
	for _, want := range []string{"field exclude:", "pattern 1", `"a)|(b"`, "not a valid regular expression"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// TestSelectionCanonical: a table list is named independently of its
// order; patterns are named as written, anchors removed.
func TestSelectionCanonical(t *testing.T) {
	ab := &selection{fixed: []tableName{newTableName("shop", "b"), newTableName("my.db", "a")}}
	ba := &selection{fixed: []tableName{newTableName("my.db", "a"), newTableName("shop", "b")}}
	if ab.canonical() != ba.canonical() || ab.canonical() != "tables `my.db`.a,shop.b" {
		t.Errorf("canonical %q and %q, want both %q", ab.canonical(), ba.canonical(), "tables `my.db`.a,shop.b")
	}
	p := patternSelection(t, []string{`shop\..*`, `crm\.(a|b)`}, []string{`shop\.tmp_.*`})
	if want := `include ["shop\\..*" "crm\\.(a|b)"] exclude ["shop\\.tmp_.*"]`; p.canonical() != want {
		t.Errorf("canonical %q, want %q", p.canonical(), want)
	}
	if ab.byPattern() {
		t.Error("a fixed list is byPattern")
	}
}
