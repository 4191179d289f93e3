package snapshot

import "errors"

// ErrNavigated means the main frame navigated while the snapshot was
// taken: its refs would point into a document that is gone. Take it
// again.
var ErrNavigated = errors.New("snapshot: the tab navigated during the snapshot; take it again")

// ArgError is a request the snapshot cannot serve as asked — a ref that is
// not one, a negative depth or limit, a frame spec that names no iframe:
// the caller's to fix (an invalid_argument for an agent).
type ArgError struct{ Msg string }

func (e *ArgError) Error() string { return "snapshot: " + e.Msg }

// argErr is an *ArgError.
func argErr(msg string) error { return &ArgError{Msg: msg} }
