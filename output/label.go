package output

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"sync"
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

// deterministicLabel names the load of rows first..last (count messages) into
// target. The same rows replayed after a restart get the same label, so Doris
// refuses the second load with "Label Already Exists". The target is kept as
// a hash (labels are unique per database, and names may hold any character)
// plus as much of its sanitized name as fits, for people reading SHOW LOAD.
func deterministicLabel(prefix, target string, first, last position, count int) string {
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

	sum := sha256.Sum256([]byte(target))
	hash := hex.EncodeToString(sum[:4])
	fixed := len(prefix) + 1 + len(hash) + 1 + len(pos)
	if fixed > maxLabelLen {
		// Only with extreme positions: keep determinism, lose readability.
		all := sha256.Sum256([]byte(target + "\x00" + string(pos)))
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

// pendingLabels remembers the random labels of loads that failed, by the
// hash of what was loaded. Benthos retries a failed batch by delivering the
// same messages again; with the same target and body the retry takes the old
// label back, so a load whose answer was lost is not repeated (Doris answers
// "Label Already Exists"). A label is taken by one load at a time and only
// returned on failure, so two equal batches in flight never share one. The
// memory is per process: after a restart random labels give at-least-once.
type pendingLabels struct {
	mu  sync.Mutex
	m   map[[32]byte]string
	ord [][32]byte // insertion order, to bound the map
}

const maxPendingLabels = 4096

func newPendingLabels() *pendingLabels {
	return &pendingLabels{m: map[[32]byte]string{}}
}

func contentKey(target string, body []byte) [32]byte {
	h := sha256.New()
	h.Write([]byte(target))
	h.Write([]byte{0})
	h.Write(body)
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// take returns the label kept for key and forgets it, or a fresh one.
func (p *pendingLabels) take(key [32]byte, prefix string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if l, ok := p.m[key]; ok {
		delete(p.m, key)
		return l
	}
	return randomLabel(prefix)
}

// keep stores label for the next load of the same content.
func (p *pendingLabels) keep(key [32]byte, label string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.m[key]; !ok {
		p.ord = append(p.ord, key)
	}
	p.m[key] = label
	for len(p.m) > maxPendingLabels && len(p.ord) > 0 {
		delete(p.m, p.ord[0])
		p.ord = p.ord[1:]
	}
	if len(p.ord) > 2*maxPendingLabels {
		live := p.ord[:0]
		for _, k := range p.ord {
			if _, ok := p.m[k]; ok {
				live = append(live, k)
			}
		}
		p.ord = live
	}
}
