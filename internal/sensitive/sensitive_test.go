package sensitive

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/tools"
)

func TestOfAddsThePolicysSelectors(t *testing.T) {
	got, err := Of(nil)
	require.NoError(t, err)
	require.Equal(t, Builtin, got, "no policy: the built-in selectors")

	got, err = Of(func() ([]string, error) { return []string{".private-note"}, nil })
	require.NoError(t, err)
	require.Equal(t, append(append([]string(nil), Builtin...), ".private-note"), got)
	got[0] = "changed"
	require.Equal(t, `input[type=password i]`, Builtin[0], "callers get a copy")
}

func TestOfFailsClosed(t *testing.T) {
	_, err := Of(func() ([]string, error) { return nil, errors.New("bad regex in user_patterns") })
	var te *tools.Error
	require.ErrorAs(t, err, &te)
	require.Equal(t, "redaction_failed", te.Code)
	require.Contains(t, te.Message, "bad regex in user_patterns")
	require.Contains(t, te.Message, `configure {what:"redaction", op:"get"}`)
}
