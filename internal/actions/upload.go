package actions

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"

	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// UploadArgs are upload's arguments.
type UploadArgs struct {
	Target
	Files []string // absolute paths
}

const filesJS = `function () { return {n: this.files ? this.files.length : -1, multiple: !!this.multiple} }`

// fileInput resolves target to a file input that takes n files.
func (a *act) fileInput(ctx context.Context, target Target, n int) (*elem, error) {
	el, err := a.resolve(ctx, target, true)
	if err != nil {
		return nil, err
	}
	p, err := a.prepare(ctx, el, false)
	if err != nil {
		return nil, err
	}
	if p.Tag != "input" || p.Type != "file" {
		return nil, errorf(CodeNotEditable, "%s is not a file input (<input type=file>); target the input itself", el.desc)
	}
	var st struct{ Multiple bool }
	if err := a.callEl(ctx, el, filesJS, &st); err != nil {
		return nil, err
	}
	if n > 1 && !st.Multiple {
		return nil, invalid("%s takes one file; %d given", el.desc, n)
	}
	return el, nil
}

// setFiles sets paths on the file input el (the page sees input and
// change events) and checks that it holds them.
func (a *act) setFiles(ctx context.Context, el *elem, paths []string) error {
	a.settle()
	if _, err := cdproto.Call(ctx, el.s, dom.SetFileInputFiles, dom.SetFileInputFilesParams{Files: paths, BackendNodeID: el.backend}); err != nil {
		return fmt.Errorf("setting files on %s: %w", el.desc, err)
	}
	var st struct{ N int }
	if err := a.callEl(ctx, el, filesJS, &st); err != nil {
		return err
	}
	if st.N != len(paths) {
		return errorf(CodeNotApplied, "set %d files on %s but it holds %d", len(paths), el.desc, st.N)
	}
	return nil
}

// Upload sets files on a file input (DOM.setFileInputFiles; the page sees
// input and change events). Paths are checked first: credential, key,
// shell-history and browser-profile paths are refused, symlinks resolved
// (CheckUploadPaths).
func (e *Engine) Upload(ctx context.Context, tab int, args UploadArgs) (*Result, error) {
	return e.run(ctx, tab, "upload", runOpts{probe: true}, func(ctx context.Context, a *act) error {
		paths, err := CheckUploadPaths(args.Files, a.e.cfg.Protected)
		if err != nil {
			var pe *PathError
			if errors.As(err, &pe) {
				return &tools.Error{Code: CodeRefusedPath, Message: pe.Error() + "; Gasoline never uploads keys, credentials, shell histories or browser profiles"}
			}
			return invalid("%v", err)
		}
		el, err := a.fileInput(ctx, args.Target, len(paths))
		if err != nil {
			return err
		}
		if err := a.setFiles(ctx, el, paths); err != nil {
			return err
		}
		names := make([]string, len(paths))
		for i, p := range paths {
			names[i] = filepath.Base(p)
		}
		a.res.Value = names
		return a.done(nil, el.desc, fmt.Sprintf("set %d file(s) on %s: %s", len(paths), el.desc, strings.Join(names, ", ")))
	})
}
