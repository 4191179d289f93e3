package actions

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// Upload by content (issue 34, item 2): an agent whose files are on
// another machine — a remote agent above all, which may never name paths
// on the user's machine — sends each file's name, type and bytes
// (base64). The daemon writes them into a private folder of its own
// (Config.Uploads, 0700; files 0600) and sets those files on the input
// with DOM.setFileInputFiles, as an upload by path does. Chrome reads a
// chosen file when the page does, so the files stay until they are an
// hour old (pruned at the next upload). Downloads read back by content
// will come with the downloads issue: DownloadContent is their seam.

// FileContent is one file sent by content (the tool surface's type).
type FileContent = tools.FileContent

// MaxContentBytes caps the files of one upload by content, decoded.
const MaxContentBytes = 25 << 20

// uploadKeep is how long uploaded contents are kept for the page to read.
const uploadKeep = time.Hour

// decoded is a checked file sent by content.
type decoded struct {
	name, typ string
	data      []byte
}

// checkContents decodes and checks the files: names that are plain file
// names, valid base64, at most MaxContentBytes in all.
func checkContents(files []FileContent) ([]decoded, error) {
	if len(files) == 0 {
		return nil, invalid("upload needs files (absolute paths on the user's machine) or file_contents [{name, type, base64}]")
	}
	var out []decoded
	total := 0
	for i, f := range files {
		name := f.Name
		if name == "" || strings.TrimSpace(name) != name || name != filepath.Base(name) || name == "." || name == ".." || strings.ContainsFunc(name, unicode.IsControl) || len(name) > 255 {
			return nil, invalid("file_contents[%d].name %q: a plain file name (no folders)", i, f.Name)
		}
		total += base64.StdEncoding.DecodedLen(len(f.Base64))
		if total > MaxContentBytes+3*len(files) {
			return nil, invalid("file_contents are over %d MiB decoded in all; send fewer or smaller files", MaxContentBytes>>20)
		}
		data, err := base64.StdEncoding.DecodeString(f.Base64)
		if err != nil {
			return nil, invalid("file_contents[%d].base64 is not standard base64: %v", i, err)
		}
		out = append(out, decoded{name: name, typ: f.Type, data: data})
	}
	sum := 0
	for _, d := range out {
		sum += len(d.data)
	}
	if sum > MaxContentBytes {
		return nil, invalid("file_contents are %d bytes decoded, over the %d MiB cap; send fewer or smaller files", sum, MaxContentBytes>>20)
	}
	return out, nil
}

// DescribeContents says what an upload by content sets, for the
// approval prompt: every name, type and size.
func DescribeContents(files []FileContent) string {
	parts := make([]string, len(files))
	for i, f := range files {
		typ := f.Type
		if typ == "" {
			typ = "no type given"
		}
		parts[i] = fmt.Sprintf("%q (%s, %d bytes)", f.Name, typ, base64.StdEncoding.DecodedLen(len(f.Base64)))
	}
	return strings.Join(parts, ", ")
}

// UploadContents sets files sent by content on a file input.
func (e *Engine) UploadContents(ctx context.Context, tab int, target Target, paths []string, files []FileContent) (*Result, error) {
	return e.run(ctx, tab, "upload", runOpts{probe: true}, func(ctx context.Context, a *act) error {
		if len(paths) > 0 {
			return invalid("give files (paths) or file_contents, not both")
		}
		if a.e.cfg.Uploads == "" {
			return &tools.Error{Code: tools.CodeNotAvailable, Message: "uploads by content are not available in this daemon"}
		}
		got, err := checkContents(files)
		if err != nil {
			return err
		}
		el, err := a.fileInput(ctx, target, len(got))
		if err != nil {
			return err
		}
		written, err := a.e.writeContents(got)
		if err != nil {
			return err
		}
		if err := a.setFiles(ctx, el, written); err != nil {
			return err
		}
		names := make([]string, len(got))
		for i, d := range got {
			names[i] = d.name
		}
		a.res.Value = names
		return a.done(nil, el.desc, fmt.Sprintf("set %d file(s) sent by content on %s: %s", len(got), el.desc, strings.Join(names, ", ")))
	})
}

// writeContents writes the files into a new private folder under
// Config.Uploads and returns their paths; folders past uploadKeep go.
func (e *Engine) writeContents(files []decoded) ([]string, error) {
	root := e.cfg.Uploads
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, fmt.Errorf("upload by content: %w", err)
	}
	e.pruneUploads(root)
	dir := filepath.Join(root, fmt.Sprintf("%d-%s", time.Now().UnixNano(), rand.Text()[:8]))
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, fmt.Errorf("upload by content: %w", err)
	}
	out := make([]string, len(files))
	for i, f := range files {
		p := filepath.Join(dir, f.name)
		if _, err := os.Lstat(p); err == nil { // two files of one name: each its own folder
			sub := filepath.Join(dir, fmt.Sprint(i))
			if err := os.Mkdir(sub, 0o700); err != nil {
				return nil, fmt.Errorf("upload by content: %w", err)
			}
			p = filepath.Join(sub, f.name)
		}
		if err := os.WriteFile(p, f.data, 0o600); err != nil {
			return nil, fmt.Errorf("upload by content: %w", err)
		}
		out[i] = p
	}
	return out, nil
}

// pruneUploads removes upload folders older than uploadKeep.
func (e *Engine) pruneUploads(root string) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, en := range entries {
		if fi, err := en.Info(); err == nil && time.Since(fi.ModTime()) > uploadKeep {
			os.RemoveAll(filepath.Join(root, en.Name()))
		}
	}
}

// DownloadContent is the seam of downloads read back by content (the
// downloads issue): a file the browser saved, returned as a FileContent
// within MaxContentBytes. Not served yet.
func DownloadContent(string) (FileContent, error) {
	return FileContent{}, &tools.Error{Code: tools.CodeNotAvailable, Message: "downloads read back by content are not available yet"}
}
