package sqlengine

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// largeIntPrecision marks LARGEINT inside GMS: Doris decimals stop at 38 digits,
// so DECIMAL(39,0) cannot collide with a user column.
const largeIntPrecision = 39

// gmsType maps a Doris column type onto the GMS type used for planning and
// expression evaluation.
func gmsType(t storage.Type) sql.Type {
	switch t.Kind {
	case storage.Boolean:
		return types.Boolean
	case storage.TinyInt:
		return types.Int8
	case storage.SmallInt:
		return types.Int16
	case storage.Int:
		return types.Int32
	case storage.BigInt:
		return types.Int64
	case storage.LargeInt:
		return types.MustCreateDecimalType(largeIntPrecision, 0)
	case storage.Float:
		return types.Float32
	case storage.Double:
		return types.Float64
	case storage.Decimal:
		if dt, err := types.CreateDecimalType(uint8(t.Precision), uint8(t.Scale)); err == nil {
			return dt
		}
		return types.MustCreateDecimalType(65, 30)
	case storage.Date:
		return types.Date
	case storage.DateTime:
		if dt, err := types.CreateDatetimeType(sqltypes.Datetime, t.Scale); err == nil {
			return dt
		}
		return types.DatetimeMaxPrecision
	case storage.Char:
		return stringType(sqltypes.Char, t.Length)
	case storage.Varchar:
		return stringType(sqltypes.VarChar, t.Length)
	case storage.String:
		return types.LongText
	default: // JSON, ARRAY, MAP, STRUCT
		return types.JSON
	}
}

// stringType falls back to LONGTEXT when GMS cannot represent the declared
// length (Doris VARCHAR goes up to 65533 bytes, GMS counts utf8mb4 characters).
func stringType(base querypb.Type, length int) sql.Type {
	if length <= 0 {
		return types.LongText
	}
	st, err := types.CreateString(base, int64(length), sql.Collation_Default)
	if err != nil {
		return types.LongText
	}
	return st
}

// dorisTypeOf maps a GMS result type to the closest Doris type, for columns
// that are computed rather than read from a table.
func dorisTypeOf(t sql.Type) storage.Type {
	switch t.Type() {
	case sqltypes.Int8:
		return storage.Type{Kind: storage.TinyInt}
	case sqltypes.Uint8, sqltypes.Int16, sqltypes.Year:
		return storage.Type{Kind: storage.SmallInt}
	case sqltypes.Uint16, sqltypes.Int24, sqltypes.Uint24, sqltypes.Int32:
		return storage.Type{Kind: storage.Int}
	case sqltypes.Uint32, sqltypes.Int64, sqltypes.Bit:
		return storage.Type{Kind: storage.BigInt}
	case sqltypes.Uint64:
		return storage.Type{Kind: storage.LargeInt}
	case sqltypes.Float32:
		return storage.Type{Kind: storage.Float}
	case sqltypes.Float64:
		return storage.Type{Kind: storage.Double}
	case sqltypes.Decimal:
		dt, ok := t.(sql.DecimalType)
		if !ok {
			return storage.Type{Kind: storage.Decimal, Precision: 38, Scale: 9}
		}
		if dt.Precision() == largeIntPrecision && dt.Scale() == 0 {
			return storage.Type{Kind: storage.LargeInt}
		}
		return storage.Type{Kind: storage.Decimal, Precision: int(dt.Precision()), Scale: int(dt.Scale())}
	case sqltypes.Date:
		return storage.Type{Kind: storage.Date}
	case sqltypes.Datetime, sqltypes.Timestamp:
		p := 0
		if dt, ok := t.(sql.DatetimeType); ok {
			p = dt.Precision()
		}
		return storage.Type{Kind: storage.DateTime, Scale: p}
	case sqltypes.Char:
		return storage.Type{Kind: storage.Char, Length: stringLength(t)}
	case sqltypes.VarChar:
		return storage.Type{Kind: storage.Varchar, Length: stringLength(t)}
	case sqltypes.TypeJSON:
		return storage.Type{Kind: storage.JSON}
	default:
		return storage.Type{Kind: storage.String}
	}
}

func stringLength(t sql.Type) int {
	if st, ok := t.(sql.StringType); ok {
		return int(st.MaxCharacterLength())
	}
	return 0
}

// gmsSchema builds the GMS schema of a Doris column list. No column is a GMS
// primary key: key handling (UNIQUE upsert) belongs to storage.
func gmsSchema(source, db string, cols []storage.Column) sql.Schema {
	sch := make(sql.Schema, len(cols))
	for i, c := range cols {
		sch[i] = &sql.Column{
			Name:           c.Name,
			Type:           gmsType(c.Type),
			Nullable:       c.Nullable,
			Default:        gmsDefault(c),
			Source:         source,
			DatabaseSource: db,
			Comment:        c.Comment,
		}
	}
	return sch
}
