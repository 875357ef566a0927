package checkpoint

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

// KeyPrefix starts every default checkpoint key.
const KeyPrefix = "doris_binlog_"

// digestPrefix marks a key named by the SHA-256 of a selection's text.
const digestPrefix = KeyPrefix + "sel_"

// maxReadableKey bounds a readable table key, so that the key plus BackupSuffix
// stays a valid file name (255 bytes on common file systems) and fits the
// doris cache's key column; longer names get the digest form.
const maxReadableKey = 200

// TableKey is the default checkpoint key of an input that follows the one
// table db.table: KeyPrefix, EscapeKeyPart(db), ".", EscapeKeyPart(table);
// a key longer than maxReadableKey becomes SelectionKey("tables " + id)
// instead, id being the table's `db.table` identifier (which quotes names
// that need it, so that it is injective too).
//
// Injectivity: EscapeKeyPart is injective and never writes a '.', so the one
// '.' after the fixed prefix splits a readable key back into its two escaped
// parts, and each part into its name. A digest key holds no '.', so it never
// equals a readable one, and two digest keys are equal only for equal texts
// (short of a SHA-256 collision).
func TableKey(db, table string) string {
	k := KeyPrefix + EscapeKeyPart(db) + "." + EscapeKeyPart(table)
	if len(k) > maxReadableKey {
		return SelectionKey("tables " + doris.FormatTableIdentifier(db, table))
	}
	return k
}

// SelectionKey is the default key of a selection that is not a single
// table, named by its canonical text: digestPrefix and the SHA-256 of text
// in hex.
func SelectionKey(text string) string {
	sum := sha256.Sum256([]byte(text))
	return digestPrefix + hex.EncodeToString(sum[:])
}

// EscapeKeyPart writes s in the alphabet [a-z0-9_-], which every Benthos cache
// accepts in a key, file names on case-insensitive file systems included:
// a-z, 0-9 and '_' stay as they are, and every other byte b becomes '-'
// followed by
//
//	'-'                  when b is '-'
//	b in lower case      when b is an upper-case letter A-Z
//	three octal digits   otherwise (the first is 0-3)
//
// Each byte maps to a code word, and no code word is a prefix of another
// (one-byte words are not '-'; after '-' the second character tells the three
// kinds apart, and each kind has a fixed length), so the mapping is injective.
func EscapeKeyPart(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '_':
			b.WriteByte(c)
		case c == '-':
			b.WriteString("--")
		case c >= 'A' && c <= 'Z':
			b.WriteByte('-')
			b.WriteByte(c + 'a' - 'A')
		default:
			fmt.Fprintf(&b, "-%03o", c)
		}
	}
	return b.String()
}

// LegacyTableKey is the default key that earlier builds derived for the
// single table db.table. It is lossy (`a_b.c` and `a.b_c` share it), so it
// is only read, to carry a checkpoint over to TableKey.
func LegacyTableKey(db, table string) string {
	return SanitizeKey(KeyPrefix + db + "_" + table)
}

// LegacySelectionKey is the default key that earlier builds derived for
// other selections: 48 bits of the digest, read only to carry over.
func LegacySelectionKey(text string) string {
	sum := sha256.Sum256([]byte(text))
	return KeyPrefix + hex.EncodeToString(sum[:6])
}
