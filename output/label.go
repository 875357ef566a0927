package output

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"strconv"
	"strings"
)

// Doris accepts labels of at most 128 characters from [-_A-Za-z0-9:].
const maxLabelLen = 128

// position is a change's place in the source: its commit TSO, its LSN within
// the commit, and its operation.
type position struct {
	tso, lsn int64
	op       string
}

// opCode keeps the operation in a label with one character.
func opCode(op string) byte {
	switch op {
	case opRead:
		return 'r'
	case opInsert:
		return 'i'
	case opUpdate:
		return 'u'
	case opUpdateBefore:
		return 'b'
	case opUpdateAfter:
		return 'a'
	case opDelete:
		return 'd'
	}
	return 'x'
}

// deterministicLabel names the load of rows first..last (count messages)
// from sources into target. The same rows replayed after a restart get the
// same label, so Doris refuses the second load with "Label Already Exists".
// Two sources can reach the same positions (two clusters, two tables fed
// into one target), so the hash covers the sources as well as the target:
// labels are unique per database, and names may hold any character. As much
// of the sanitized target name as fits is kept, for people reading SHOW LOAD.
func deterministicLabel(prefix, target string, sources []string, first, last position, count int) string {
	var pos []byte
	pos = strconv.AppendInt(pos, first.tso, 10)
	pos = append(pos, '-')
	pos = strconv.AppendInt(pos, first.lsn, 10)
	pos = append(pos, opCode(first.op), '_')
	pos = strconv.AppendInt(pos, last.tso, 10)
	pos = append(pos, '-')
	pos = strconv.AppendInt(pos, last.lsn, 10)
	pos = append(pos, opCode(last.op), '_')
	pos = strconv.AppendInt(pos, int64(count), 10)

	id := identity(target, sources)
	hash := hex.EncodeToString(id[:8])
	fixed := len(prefix) + 1 + len(hash) + 1 + len(pos)
	if fixed > maxLabelLen {
		// Only with extreme positions: keep determinism, lose readability.
		all := sha256.Sum256(append(id[:], pos...))
		return prefix + "_" + hex.EncodeToString(all[:20])
	}
	name := sanitizeLabel(target)
	if room := maxLabelLen - fixed - 1; room > 0 && name != "" {
		if len(name) > room {
			name = name[:room]
		}
		return prefix + "_" + name + "_" + hash + "_" + string(pos)
	}
	return prefix + "_" + hash + "_" + string(pos)
}

// identity hashes the target and the sources, each length-prefixed so that
// no two lists hash alike by shifting a separator.
func identity(target string, sources []string) [32]byte {
	h := sha256.New()
	for _, s := range append([]string{target}, sources...) {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// randomLabel is used when the rows carry no source position.
func randomLabel(prefix string) string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return prefix + "_" + hex.EncodeToString(b[:])
}

// sanitizeLabel maps a db.table name into the label alphabet.
func sanitizeLabel(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if validLabelByte(c) {
			b.WriteByte(c)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

func validLabelByte(c byte) bool {
	return c == '-' || c == '_' || c == ':' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}
