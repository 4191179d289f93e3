package redact

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFieldsSumsAndSticks(t *testing.T) {
	e, err := New(DefaultPolicy())
	require.NoError(t, err)
	a := "token ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
	u := "https://x.test/cb?access_token=abc123&page=2"
	plain := "nothing here"
	f := Fields{E: e}
	f.Text(&a)
	f.URL(&u)
	f.Strings(&plain)
	require.NoError(t, f.Err)
	require.NotContains(t, a, "ghp_")
	require.NotContains(t, u, "abc123")
	require.Contains(t, u, "page=2")
	require.Equal(t, "nothing here", plain)
	require.Equal(t, 2, f.Stats.Redacted)
	require.Len(t, f.Stats.ByClass, 2, "%v", f.Stats.ByClass)

	// A stuck error leaves later fields alone and blocks JSON.
	f.Err = errors.New("boom")
	b := "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
	f.Text(&b)
	require.Equal(t, "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8", b)
	require.Nil(t, f.JSON([]byte(`{"password":"x"}`)))

	// No engine: blocked, never passed through.
	var none Fields
	c := "x"
	none.Text(&c)
	require.ErrorIs(t, none.Err, ErrBlocked)
	var none2 Fields
	require.Nil(t, none2.JSON([]byte(`{}`)))
	require.ErrorIs(t, none2.Err, ErrBlocked)
}
