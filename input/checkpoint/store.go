package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

// BackupSuffix is appended to the key of the copy written before the primary.
const BackupSuffix = ".bak"

// LoadInfo tells the caller what Load had to work around, so that it can log
// it; the Store itself never logs.
type LoadInfo struct {
	// FromBackup is true when the returned state came from `<key>.bak`.
	FromBackup bool
	// CorruptKey names the copy that was unreadable ("" when none was).
	CorruptKey string
	// CorruptErr is why CorruptKey was rejected.
	CorruptErr error
}

// Store keeps one State under a key of a Benthos cache resource.
type Store struct {
	res       *service.Resources
	cacheName string
	key       string

	mu      sync.Mutex
	lastSeq uint64
	enc     encoder // under mu
	now     func() time.Time
}

// NewStore returns a Store writing key and key+".bak" in the cache resource
// cacheName. key is used as given; callers targeting the `file` cache should
// pass it through SanitizeKey.
func NewStore(res *service.Resources, cacheName, key string) *Store {
	return &Store{res: res, cacheName: cacheName, key: key, now: time.Now}
}

// Key returns the primary cache key.
func (s *Store) Key() string { return s.key }

// BackupKey returns the key of the copy written first.
func (s *Store) BackupKey() string { return s.key + BackupSuffix }

// Save stores st with a sequence number higher than any this Store has read
// or written, first under the backup key and then under the primary key, so
// that a write torn by a crash always leaves one intact copy. st.Seq and
// st.SavedAt are updated to the values written.
func (s *Store) Save(ctx context.Context, st *State) error {
	return s.save(ctx, st, time.Time{})
}

// SaveEdit is Save for a state an operator changed while no input ran
// (`rpconnect-doris offsets`): it keeps st.SavedAt, the time the input
// last saved, so that saved_at keeps telling whether an input is running
// on the checkpoint.
func (s *Store) SaveEdit(ctx context.Context, st *State) error {
	if st == nil {
		return s.save(ctx, st, time.Time{})
	}
	return s.save(ctx, st, st.SavedAt)
}

// save writes st stamped with savedAt, or with the current time when
// savedAt is zero.
func (s *Store) save(ctx context.Context, st *State, savedAt time.Time) error {
	if st == nil {
		return fmt.Errorf("save checkpoint %q in cache %q: state is nil", s.key, s.cacheName)
	}
	s.mu.Lock()
	defer s.mu.Unlock()

	cp := *st
	cp.Seq = max(cp.Seq, s.lastSeq) + 1
	cp.SavedAt = savedAt
	if savedAt.IsZero() {
		cp.SavedAt = s.now().UTC()
	}
	b, err := s.enc.encode(&cp)
	if err != nil {
		return doris.Permanent(fmt.Errorf("save checkpoint %q in cache %q: %w", s.key, s.cacheName, err))
	}
	for _, key := range []string{s.BackupKey(), s.key} {
		if err := s.set(ctx, key, b); err != nil {
			return err
		}
	}
	s.lastSeq = cp.Seq
	st.Seq, st.SavedAt = cp.Seq, cp.SavedAt
	return nil
}

func (s *Store) set(ctx context.Context, key string, b []byte) error {
	var setErr error
	err := s.res.AccessCache(ctx, s.cacheName, func(c service.Cache) {
		// nil TTL: the cache default applies (see the package docs).
		setErr = c.Set(ctx, key, b, nil)
	})
	if err == nil {
		err = setErr
	}
	if err != nil {
		return fmt.Errorf("write checkpoint %q to cache %q: %w", key, s.cacheName, err)
	}
	return nil
}

// copyResult is one of the two stored copies after reading.
type copyResult struct {
	key   string
	state *State
	err   error // decode error; nil when absent or valid
}

// Load returns the newest valid stored state. A missing primary key is not an
// error; a corrupt copy is skipped and reported in LoadInfo when the other
// copy is usable. It fails when both copies are corrupt, and when the primary
// is corrupt while the backup is missing: a primary only exists after a
// complete save, so starting over would silently lose the position. A corrupt
// backup with no primary means the very first save was torn, so (nil, info,
// nil) is returned and the caller starts fresh. (nil, info, nil) also means
// nothing was stored.
func (s *Store) Load(ctx context.Context) (*State, LoadInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()

	primary, err := s.read(ctx, s.key)
	if err != nil {
		return nil, LoadInfo{}, err
	}
	backup, err := s.read(ctx, s.BackupKey())
	if err != nil {
		return nil, LoadInfo{}, err
	}
	st, info, err := s.choose(primary, backup)
	if err == nil && st != nil {
		s.lastSeq = max(s.lastSeq, st.Seq)
	}
	return st, info, err
}

func (s *Store) choose(primary, backup copyResult) (*State, LoadInfo, error) {
	var info LoadInfo
	for _, c := range []copyResult{primary, backup} {
		if c.err != nil && info.CorruptKey == "" {
			info.CorruptKey, info.CorruptErr = c.key, c.err
		}
	}
	pOK, bOK := primary.state != nil, backup.state != nil
	switch {
	case pOK && bOK:
		if backup.state.Seq > primary.state.Seq {
			info.FromBackup = true
			return backup.state, info, nil
		}
		return primary.state, info, nil
	case pOK:
		return primary.state, info, nil
	case bOK:
		info.FromBackup = true
		return backup.state, info, nil
	case primary.err != nil && backup.err != nil:
		return nil, info, fmt.Errorf("load checkpoint from cache %q: both copies are unusable: %w; %w",
			s.cacheName, primary.err, backup.err)
	case primary.err != nil:
		return nil, info, fmt.Errorf("load checkpoint from cache %q: %w, and backup %q is missing",
			s.cacheName, primary.err, backup.key)
	default:
		return nil, info, nil
	}
}

func (s *Store) read(ctx context.Context, key string) (copyResult, error) {
	var (
		val    []byte
		getErr error
	)
	err := s.res.AccessCache(ctx, s.cacheName, func(c service.Cache) {
		val, getErr = c.Get(ctx, key)
	})
	if err == nil {
		err = getErr
	}
	if errors.Is(err, service.ErrKeyNotFound) {
		return copyResult{key: key}, nil
	}
	if err != nil {
		return copyResult{}, fmt.Errorf("read checkpoint %q from cache %q: %w", key, s.cacheName, err)
	}
	st, derr := Decode(val)
	if derr != nil {
		return copyResult{key: key, err: withKey(derr, key)}, nil
	}
	return copyResult{key: key, state: st}, nil
}

func withKey(err error, key string) error {
	var ce *CorruptError
	if errors.As(err, &ce) {
		return &CorruptError{Key: key, Reason: ce.Reason}
	}
	var ve *UnsupportedVersionError
	if errors.As(err, &ve) {
		return &UnsupportedVersionError{Key: key, Version: ve.Version}
	}
	return fmt.Errorf("checkpoint %q: %w", key, err)
}

// SanitizeKey maps s to a non-empty key that is a valid file name for the
// `file` cache: every rune outside [A-Za-z0-9._-] becomes '_', and the
// directory names "." and ".." are replaced.
func SanitizeKey(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	out := b.String()
	if out == "" || strings.Trim(out, ".") == "" {
		return strings.Repeat("_", max(len(out), 1))
	}
	return out
}
