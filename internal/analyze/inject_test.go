package analyze

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gasoline-mcp/gasoline/internal/protocol"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

type fakeLink struct{ err error }

func (f fakeLink) Call(context.Context, string, any) (json.RawMessage, error) { return nil, f.err }

// An extension that cannot run axe-core makes accessibility not_available
// with a message that says how to fix it; other link errors keep their
// code.
func TestInjectErrors(t *testing.T) {
	for _, tc := range []struct {
		err  error
		code string
	}{
		{&protocol.Error{Code: "unknown_method", Message: "no"}, tools.CodeNotAvailable},
		{&protocol.Error{Code: "unavailable", Message: "the extension has no vendor/axe/axe.min.js; run make vendor"}, tools.CodeNotAvailable},
		{&protocol.Error{Code: "tab_closed", Message: "gone"}, "tab_closed"},
		{context.DeadlineExceeded, tools.CodeTimeout},
	} {
		a := &Analyzer{cfg: Config{Link: fakeLink{tc.err}}}
		err := a.inject(context.Background(), &tabPage{tab: 1, ec: 2})
		var te *tools.Error
		if assert.True(t, errors.As(err, &te), "%v", err) {
			assert.Equal(t, tc.code, te.Code)
		}
	}
	a := &Analyzer{cfg: Config{Link: fakeLink{&protocol.Error{Code: "unavailable", Message: "run make vendor"}}}}
	err := a.inject(context.Background(), &tabPage{})
	assert.Contains(t, err.Error(), "run make vendor")
}
