package checkpoint

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
)

// ErrCorrupt is matched (errors.Is) by every error reporting unreadable
// checkpoint bytes.
var ErrCorrupt = errors.New("checkpoint is corrupt")

// CorruptError describes why stored checkpoint bytes were rejected. Key is
// empty when the bytes did not come from a Store.
type CorruptError struct {
	Key    string
	Reason string
}

func (e *CorruptError) Error() string {
	if e.Key == "" {
		return "checkpoint is corrupt: " + e.Reason
	}
	return fmt.Sprintf("checkpoint %q is corrupt: %s", e.Key, e.Reason)
}

// Is makes errors.Is(err, ErrCorrupt) true.
func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt }

// UnsupportedVersionError reports a checkpoint written by another layout.
type UnsupportedVersionError struct {
	Key     string
	Version int
}

func (e *UnsupportedVersionError) Error() string {
	where := "checkpoint"
	if e.Key != "" {
		where = fmt.Sprintf("checkpoint %q", e.Key)
	}
	return fmt.Sprintf("%s has unsupported version %d (this build reads versions %d to %d)", where, e.Version, LegacyVersion, Version)
}

func corrupt(format string, args ...any) error {
	return &CorruptError{Reason: fmt.Sprintf(format, args...)}
}

// PermanentError is a cache write that trying again cannot make succeed,
// or Doris rows that reading again cannot convert (package changes).
// Caches mark such errors by a method Permanent() bool in their chain (the
// doris cache does); IsPermanent also knows the file cache's.
type PermanentError struct{ Err error }

func (e *PermanentError) Error() string   { return e.Err.Error() }
func (e *PermanentError) Unwrap() error   { return e.Err }
func (e *PermanentError) Permanent() bool { return true }

// IsPermanent tells whether a failed cache write would fail again the same
// way: the cache says so, or the file cache may not write or name the file.
func IsPermanent(err error) bool {
	var p interface{ Permanent() bool }
	if errors.As(err, &p) && p.Permanent() {
		return true
	}
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.ENAMETOOLONG) || errors.Is(err, syscall.EROFS)
}
