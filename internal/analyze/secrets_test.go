package analyze

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/redact"
)

func engine(t *testing.T) *redact.Engine {
	t.Helper()
	e, err := redact.New(redact.DefaultPolicy())
	require.NoError(t, err)
	return e
}

// Secrets in URLs are named by parameter (or path/userinfo) and class;
// the place they were is given without any parameter value.
func TestURLSecrets(t *testing.T) {
	e := engine(t)
	jwt := "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
	for _, tc := range []struct {
		url   string
		want  []urlSecret
		where string
	}{
		{"https://a.test/p?page=2&q=shoes", nil, "https://a.test/p?…"},
		{"https://a.test/p?api_key=sk_live_4eC39HqLyjWDarjtT1zdp7dc&page=2", []urlSecret{{"api_key", "stripe_key"}}, "https://a.test/p?…"},
		{"https://a.test/cb#access_token=" + jwt + "&state=x", []urlSecret{{"access_token", "jwt"}}, "https://a.test/cb"},
		{"https://a.test/reset/" + jwt, []urlSecret{{"(path)", "jwt"}}, "https://a.test/reset/[REDACTED:jwt]"},
		{"https://ada:hunter22@a.test/", []urlSecret{{"(userinfo)", "password"}}, "https://a.test/"},
		{"http://a.test/x?token=[REDACTED:github_token]", []urlSecret{{"token", "github_token"}}, "http://a.test/x?…"},
	} {
		got, where := urlSecrets(e, tc.url)
		assert.Equal(t, tc.want, got, tc.url)
		assert.Equal(t, tc.where, where, tc.url)
	}
}

// Storage items and cookie names are judged by the engine's rules.
func TestSecretClass(t *testing.T) {
	e := engine(t)
	assert.Equal(t, "", secretClass(e, "theme", "dark"))
	assert.Equal(t, "password", secretClass(e, "refresh_token", "opaque-value-123"))
	assert.Equal(t, "stripe_key", secretClass(e, "payment", "key sk_live_4eC39HqLyjWDarjtT1zdp7dc"))
	assert.Equal(t, "", secretClass(e, "token_type", "Bearer"))
	assert.Equal(t, "session_id", secretName(e, "session_id"))
	assert.Equal(t, "", secretName(e, "tracking"))
}

// Messages lose their variable parts; paths their ids.
func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"Failed to load user 17": "Failed to load user <n>",
		"Uncaught TypeError: Cannot read properties of null (reading 'f')": "Uncaught TypeError: Cannot read properties of null (reading <str>)",
		"GET http://a.test/api/7 failed":                                   "GET <url> failed",
		"order 3f2b9c1d-aaaa-4bbb-8ccc-0123456789ab not found":             "order <id> not found",
		"hash deadbeef1234 mismatch after 3 tries":                         "hash <id> mismatch after <n> tries",
	} {
		assert.Equal(t, want, normalize(in), in)
	}
	assert.Equal(t, "/api/users/<n>/posts/<id>", pathPattern("http://a.test/api/users/17/posts/3f2b9c1d-aaaa-4bbb-8ccc-0123456789ab?x=1"))
}
