// Package rowjson turns Arrow record batches from Doris into one JSON object
// per row, written straight into a byte slice. It is the hot path of the
// doris_binlog input: writers are chosen once per schema, typed arrays are
// bound once per batch, and a row costs no allocations.
//
// The body is an object of the columns in schema order; the hidden
// __DORIS_BINLOG_TSO__/LSN/OP columns (any letter case) are never in it and
// are read with BinlogPos instead. Values are rendered as follows:
//
//   - BOOLEAN: true/false. Integers: JSON numbers.
//   - FLOAT/DOUBLE: JSON numbers formatted like encoding/json; NaN and
//     ±Inf, which JSON cannot hold, become null.
//   - DECIMAL (decimal32/64/128/256): exact strings that keep the scale,
//     "12.30" for DECIMAL(10,2) 12.3.
//   - LARGEINT: exact integer strings, from utf8 (doris_type=LARGEINT) or
//     the older fixed_size_binary(16) little-endian two's complement. A
//     fixed_size_binary(16) without metadata is taken as LARGEINT, since no
//     other Doris type maps to it.
//   - DATE (date32/date64): "yyyy-MM-dd". DATETIME (timestamp): without a
//     zone it is Doris's wall clock, printed as is; with a zone it is an
//     instant printed on Options.Location's wall clock (default: the zone it
//     carries, the session zone the BE converted from). Always
//     "yyyy-MM-dd HH:mm:ss" plus exactly p fractional digits (truncated),
//     p from Options.DatetimePrecision or else the unit (s 0, ms 3, µs and
//     ns 6). Text DATE/DATETIME (v1) pass through as strings.
//   - Strings: escaped JSON strings; invalid UTF-8 becomes U+FFFD and
//     U+2028/U+2029 are escaped, as encoding/json does.
//   - JSON (utf8 with doris_type=JSON, or the arrow.json extension):
//     embedded as a JSON value; text that is not valid UTF-8 JSON is kept as
//     a JSON string so that the message stays valid.
//   - IPV4 (int32/uint32 with doris_type=IPV4): the dotted quad string.
//   - UUID (arrow.uuid, registered or as field metadata): canonical string.
//   - Binary (HLL, BITMAP, VARBINARY, other fixed-size binary): base64.
//   - ARRAY: JSON array. STRUCT: object of its fields. MAP: object when keys
//     are scalars (member names are the keys' text: strings as themselves,
//     numbers/decimals/dates as printed, null as "null"; duplicate keys kept
//     in order); with nested keys, an array of {"key":k,"value":v}.
//   - Dictionary arrays are decoded; NULL anywhere is null.
//
// Any other Arrow type makes NewConverter fail, naming the column and type.
package rowjson
