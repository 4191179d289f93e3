package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// TooOpenError is a private file (one holding keys or a command to run)
// that other users may read or write: it is refused, never used.
type TooOpenError struct {
	Path string
	Mode fs.FileMode
}

func (e *TooOpenError) Error() string {
	return fmt.Sprintf("%s is %#o; run chmod 600 %s", e.Path, e.Mode, e.Path)
}

// ErrSyntax means a private file does not parse as the JSON it must be.
var ErrSyntax = errors.New("state: the file does not parse")

// ReadPrivateJSON decodes the JSON file at path into v, refusing unknown
// fields, and a file group or others may read or write (on
// Windows the user's profile folder protects it): *TooOpenError. A
// missing file reports found false and no error; a file that does not
// parse wraps ErrSyntax.
func ReadPrivateJSON(path string, v any) (found bool, err error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("state: reading %s: %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return true, fmt.Errorf("state: reading %s: %w", path, err)
	}
	if tooOpen(fi) {
		return true, &TooOpenError{Path: path, Mode: fi.Mode().Perm()}
	}
	dec := json.NewDecoder(f)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return true, fmt.Errorf("%w: %s (%v)", ErrSyntax, path, err)
	}
	return true, nil
}
