package creds

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/gasoline-mcp/gasoline/internal/state"
)

// ErrUnsafe means a credential file (or its folder) could have been read
// or written by someone else: a symlink, not a regular file, owned by
// another user, or open to group or others. Such a file is never used.
var ErrUnsafe = errors.New("creds: unsafe credential file")

// unsafeWhy says why a file or folder found at path cannot be trusted, or
// "" when it can: not a symlink, of the expected kind, owned by this user,
// and closed to group and others. It never follows a symlink.
func unsafeWhy(fi fs.FileInfo, dir bool) string {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return "it is a symlink"
	case dir && !fi.IsDir():
		return "it is not a folder"
	case !dir && !fi.Mode().IsRegular():
		return "it is not a regular file"
	}
	if why := foreignOwner(fi); why != "" {
		return why
	}
	if open := openPerm(fi); open != 0 {
		return fmt.Sprintf("its mode %04o lets group or others in", fi.Mode().Perm())
	}
	return ""
}

// Secure makes the credentials folder of a state directory one the
// daemon can trust before it writes or reads any credential: a folder
// that is a symlink, not owned by this user or open to others is removed
// (a symlink itself, never what it points to) and made again at 0700, and
// so is every file in it that fails the same checks. What was removed
// loses its value: the agent credential is minted anew (a planted one is
// never accepted), and HTTP clients need `gasoline-host mcp-config` again.
// Each repair is logged with why. The daemon calls it at start, holding
// the state directory's lock.
func Secure(stateDir string, log *slog.Logger) error {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	d := Dir(stateDir)
	fi, err := os.Lstat(d)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return ensureDir(stateDir)
	case err != nil:
		return fmt.Errorf("creds: checking %s: %w", d, err)
	}
	if why := unsafeWhy(fi, true); why != "" {
		log.Warn("credentials folder refused and replaced: every credential in it gets a new value; HTTP MCP clients need `gasoline-host mcp-config` again",
			"folder", d, "why", why)
		if err := discard(stateDir, d, fi); err != nil {
			return err
		}
		return ensureDir(stateDir)
	}
	entries, err := os.ReadDir(d)
	if err != nil {
		return fmt.Errorf("creds: reading %s: %w", d, err)
	}
	for _, e := range entries {
		p := filepath.Join(d, e.Name())
		fi, err := os.Lstat(p)
		if err != nil {
			continue // gone meanwhile
		}
		if why := unsafeWhy(fi, fi.IsDir()); why != "" || (fi.IsDir() && !isFolderOfFiles(e.Name())) {
			if why == "" {
				why = "a folder where a credential file belongs"
			}
			log.Warn("credential file refused and replaced with a new value", "file", p, "why", why)
			if err := discard(stateDir, p, fi); err != nil {
				return err
			}
		}
	}
	return nil
}

// isFolderOfFiles reports a subfolder the credentials folder may hold.
// None yet: every credential is a file.
func isFolderOfFiles(string) bool { return false }

// discard removes what was found at p (fi: its Lstat). A folder that
// cannot be removed whole (another user's files in it) is moved out of
// the way inside the state directory instead; if neither works the daemon
// cannot trust its credentials and says so.
func discard(stateDir, p string, fi fs.FileInfo) error {
	if fi.Mode()&fs.ModeSymlink != 0 || !fi.IsDir() {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("creds: removing the unsafe %s: %w; remove it by hand and start again", p, err)
		}
		return nil
	}
	if err := os.RemoveAll(p); err == nil {
		return nil
	}
	aside := filepath.Join(stateDir, ".refused-"+filepath.Base(p)+"-"+New()[:8])
	if err := os.Rename(p, aside); err != nil {
		return fmt.Errorf("creds: the unsafe %s can be neither removed nor moved aside (%w); remove it by hand and start again", p, err)
	}
	return nil
}

// readPrivate reads a credential file only if it is safe (unsafeWhy): it
// is opened without following a symlink and checked on the open file, so
// a swap between the check and the read changes nothing.
func readPrivate(path string) ([]byte, error) {
	f, err := state.OpenNoFollow(path)
	if err != nil {
		if state.IsSymlinkErr(err) {
			return nil, fmt.Errorf("%w: %s is a symlink", ErrUnsafe, path)
		}
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if why := unsafeWhy(fi, false); why != "" {
		return nil, fmt.Errorf("%w: %s: %s", ErrUnsafe, path, why)
	}
	return readAllBounded(f, 4096)
}
