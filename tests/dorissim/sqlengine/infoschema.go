package sqlengine

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/information_schema"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// byteWiseInfoTables are the information_schema tables clients page
// through by name. Doris compares and sorts strings byte by byte, so
// `TABLE_NAME > 'a'` there never hides a table named `A`; go-mysql-server
// gives information_schema a case-insensitive collation, under which it
// would. These tables get their text columns compared byte-wise.
var byteWiseInfoTables = []string{information_schema.TablesTableName, information_schema.SchemataTableName}

// dorisInfoSchema is go-mysql-server's information_schema with the tables
// in byteWiseInfoTables compared as Doris compares them.
type dorisInfoSchema struct {
	sql.Database
	byteWise map[string]sql.Table
	store    *storage.Store // serves Doris's own partitions table
}

// newDorisInfoSchema wraps base. Tables that are not go-mysql-server's own
// information_schema tables are left as they are.
func newDorisInfoSchema(ctx *sql.Context, base sql.Database, store *storage.Store) *dorisInfoSchema {
	d := &dorisInfoSchema{Database: base, byteWise: map[string]sql.Table{}, store: store}
	for _, name := range byteWiseInfoTables {
		t, ok, err := base.GetTableInsensitive(ctx, name)
		ist, isInfo := t.(*information_schema.InformationSchemaTable)
		if err != nil || !ok || !isInfo {
			continue
		}
		cp := *ist
		cp.TableSchema = byteWiseSchema(ist.TableSchema)
		d.byteWise[name] = &cp
	}
	return d
}

func (d *dorisInfoSchema) GetTableInsensitive(ctx *sql.Context, name string) (sql.Table, bool, error) {
	if strings.EqualFold(name, information_schema.PartitionsTableName) && d.store != nil {
		return partitionsTable(d.store), true, nil
	}
	if t, ok := d.byteWise[strings.ToLower(name)]; ok {
		// A fresh copy per statement: the analyzer assigns the catalog to
		// the table it resolves.
		cp := *t.(*information_schema.InformationSchemaTable)
		return &cp, true, nil
	}
	return d.Database.GetTableInsensitive(ctx, name)
}

// byteWiseSchema copies schema with every text column in a binary
// collation of the same character set.
func byteWiseSchema(schema sql.Schema) sql.Schema {
	out := schema.Copy()
	for _, col := range out {
		st, ok := col.Type.(sql.StringType)
		if !ok || !types.IsText(st) {
			continue
		}
		if bin, err := types.CreateString(st.Type(), st.Length(), sql.Collation_utf8mb4_0900_bin); err == nil {
			col.Type = bin
		}
	}
	return out
}
