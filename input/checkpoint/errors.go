package checkpoint

import (
	"errors"
	"fmt"
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
