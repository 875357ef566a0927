package doris

import "errors"

// PermanentError marks an error that trying again cannot fix: an FE answer
// that every FE repeats, a batch that fails the same way on every attempt,
// binlog rows the input cannot convert, a cache write Doris refuses. It is
// the one such mark of the bundle; IsPermanent reads it.
type PermanentError struct{ Err error }

func (e *PermanentError) Error() string { return e.Err.Error() }
func (e *PermanentError) Unwrap() error { return e.Err }

// Permanent reports true. Packages that cannot import doris (leaf
// packages, other caches) mark their errors with a method of this name,
// which IsPermanent also honours.
func (e *PermanentError) Permanent() bool { return true }

// Permanent marks err as permanent; nil stays nil.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &PermanentError{Err: err}
}

// IsPermanent reports whether an error in err's chain says, by a method
// Permanent() bool, that trying again cannot fix it.
func IsPermanent(err error) bool {
	var p interface{ Permanent() bool }
	return errors.As(err, &p) && p.Permanent()
}

// unmarkPermanent removes the mark at the top of err. A retry loop over
// the FEs uses the mark to stop one call; the caller judges for itself
// whether a later call may succeed (a grant given, a table created), so
// the mark does not leave the loop.
func unmarkPermanent(err error) error {
	if p, ok := err.(*PermanentError); ok {
		return p.Err
	}
	return err
}
