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
		el, err := a.resolve(ctx, args.Target, true)
		if err != nil {
			return err
		}
		p, err := a.prepare(ctx, el, false)
		if err != nil {
			return err
		}
		if p.Tag != "input" || p.Type != "file" {
			return errorf(CodeNotEditable, "%s is not a file input (<input type=file>); target the input itself", el.desc)
		}
		var st struct {
			N        int
			Multiple bool
		}
		if err := a.callEl(ctx, el, filesJS, &st); err != nil {
			return err
		}
		if len(paths) > 1 && !st.Multiple {
			return invalid("%s takes one file; %d given", el.desc, len(paths))
		}
		a.settle()
		if _, err := cdproto.Call(ctx, el.s, dom.SetFileInputFiles, dom.SetFileInputFilesParams{Files: paths, BackendNodeID: el.backend}); err != nil {
			return fmt.Errorf("setting files on %s: %w", el.desc, err)
		}
		if err := a.callEl(ctx, el, filesJS, &st); err != nil {
			return err
		}
		if st.N != len(paths) {
			return errorf(CodeNotApplied, "set %d files on %s but it holds %d", len(paths), el.desc, st.N)
		}
		names := make([]string, len(paths))
		for i, p := range paths {
			names[i] = filepath.Base(p)
		}
		a.res.Value = names
		return a.done(nil, el.desc, fmt.Sprintf("set %d file(s) on %s: %s", len(paths), el.desc, strings.Join(names, ", ")))
	})
}
