package redact

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	testJWT  = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
	gh36     = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A"
	awsKey   = "AKIAIOSFODNN7EXAMPLE"
	awsSec   = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	gcpKey   = "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"
	openai   = "sk-Abc123Def456Ghi789Jkl012Mno345Pqr678Stu901Vwx2"
	anthro   = "sk-ant-api03-Abc123Def456Ghi789Jkl012Mno345Pqr678-_Stu901AA"
	pemBlock = "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBase64Body==\n-----END EC PRIVATE KEY-----"
)

func m(label string) string { return Marker(label) }

// TestClassesText is the per-class table: input → exact output of Text.
func TestClassesText(t *testing.T) {
	basic := base64.StdEncoding.EncodeToString([]byte("alice:s3cret!"))
	tests := []struct {
		class Class
		in    string
		want  string
	}{
		{Bearer, "Authorization: Bearer abc123def456ghi789", "Authorization: Bearer " + m("bearer")},
		{Bearer, "curl -H 'x: Bearer abc123def456ghi789' …", "curl -H 'x: Bearer " + m("bearer") + "' …"},
		{Bearer, "bearer AbcDefGhiJklMnoPqrStuVwx", "bearer " + m("bearer")},
		{Basic, "Authorization: Basic " + basic, "Authorization: Basic " + m("basic")},
		{Basic, "sent Basic " + basic + " upstream", "sent Basic " + m("basic") + " upstream"},
		{JWT, "token " + testJWT + ".", "token " + m("jwt") + "."},
		{JWT, "id_token=" + testJWT + "&state=1", "id_token=" + m("jwt") + "&state=1"},
		{JWT, "unsigned eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0. ok", "unsigned " + m("jwt") + " ok"},
		{AWSAccessKey, "key=" + awsKey + ";", "key=" + m("aws_access_key") + ";"},
		{AWSAccessKey, "ASIAY34FZKBOKMUTVV7A in logs", m("aws_access_key") + " in logs"},
		{AWSSecret, "aws_secret_access_key = " + awsSec, "aws_secret_access_key = " + m("aws_secret")},
		{AWSSecret, `{"SecretAccessKey": "` + awsSec + `"}`, `{"SecretAccessKey": "` + m("aws_secret") + `"}`},
		{GCPAPIKey, "maps?key=" + gcpKey, "maps?key=" + m("gcp_api_key")},
		{Azure, "AccountName=a;AccountKey=abc+def/ghi==;EndpointSuffix=core.windows.net",
			"AccountName=a;AccountKey=" + m("azure") + ";EndpointSuffix=core.windows.net"},
		{Azure, "https://a.blob.core.windows.net/c?sv=2022&sig=abc%2Bdef%3D&se=1", "https://a.blob.core.windows.net/c?sv=2022&sig=" + m("azure") + "&se=1"},
		{GitHubToken, "git clone https://x:" + gh36 + "@github.com/o/r", "git clone https://x:" + m("password") + "@github.com/o/r"},
		{GitHubToken, "GITHUB_TOKEN " + gh36, "GITHUB_TOKEN " + m("github_token")},
		{GitHubToken, "github_pat_11ABCDEFG0abcdefghijkl_MNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ",
			m("github_token")},
		{GitLabToken, "PRIVATE-TOKEN glpat-Ab1Cd2Ef3Gh4Ij5Kl6Mn", "PRIVATE-TOKEN " + m("gitlab_token")},
		{SlackToken, "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", m("slack_token")},
		{SlackToken, "POST https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
			"POST https://hooks.slack.com/services/" + m("slack_token")},
		{OpenAIKey, "OPENAI_API_KEY " + openai, "OPENAI_API_KEY " + m("openai_key")},
		{OpenAIKey, "sk-proj-Ab1_Cd2-Ef3Gh4Ij5Kl6Mn7Op8", m("openai_key")},
		{AnthropicKey, "x-api-key " + anthro, "x-api-key " + m("anthropic_key")},
		{StripeKey, "Stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc", "Stripe " + m("stripe_key")},
		{StripeKey, "rk_test_51H8AbCdEfGhIjKl and whsec_AbCdEfGhIjKlMnOpQrStUvWx0123",
			m("stripe_key") + " and " + m("stripe_key")},
		{PrivateKey, "key:\n" + pemBlock + "\nnext line", "key:\n" + m("private_key") + "\nnext line"},
		{PrivateKey, "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA (truncated)", m("private_key")},
		{Cookie, "Cookie: sid=abc; theme=dark", "Cookie: sid=" + m("cookie") + "; theme=" + m("cookie")},
		{Cookie, "Set-Cookie: id=a3fWa; Expires=Thu, 21 Oct 2027 07:28:00 GMT; Secure; HttpOnly",
			"Set-Cookie: id=" + m("cookie") + "; Expires=Thu, 21 Oct 2027 07:28:00 GMT; Secure; HttpOnly"},
		{SessionID, "JSESSIONID=0A1B2C3D4E5F", "JSESSIONID=" + m("session_id")},
		{SessionID, `{"sessionId": "abc", "user": "bob"}`, `{"sessionId": "` + m("session_id") + `", "user": "bob"}`},
		{CSRF, "X-CSRF-Token: 9f8e7d6c5b4a", "X-CSRF-Token: " + m("csrf")},
		{CSRF, "<input name=authenticity_token value=x> authenticity_token=AbC123", "<input name=authenticity_token value=x> authenticity_token=" + m("csrf")},
		{Password, "login password=hunter2 user=bob", "login password=" + m("password") + " user=bob"},
		{Password, "{ apiKey: 'abc-123', name: 'x' }", "{ apiKey: '" + m("password") + "', name: 'x' }"},
		{Password, `$config['db_password'] => "pa55"`, `$config['db_password'] => "` + m("password") + `"`},
		{Password, `{\"client_secret\":\"s3cr3t\"}`, `{\"client_secret\":\"` + m("password") + `\"}`},
		{Password, "redis://:p4ss@cache:6379/0", "redis://:" + m("password") + "@cache:6379/0"},
		{Password, "refresh_token: {\"v\": \"x\"} end", "refresh_token: " + m("password") + " end"},
		{Card, "pay 4111 1111 1111 1111 now", "pay " + m("card") + " now"},
		{Card, "pan=5555-5555-5555-4444&", "pan=" + m("card") + "&"},
		{Card, "amex 3782 822463 10005.", "amex " + m("card") + "."},
		{Card, "n: 4012888888881881", "n: " + m("card")},
		{IBAN, "IBAN: DE89 3704 0044 0532 0130 00, thanks", "IBAN: " + m("iban") + ", thanks"},
		{IBAN, "to GB82WEST12345698765432.", "to " + m("iban") + "."},
		{CVV, "card 4111111111111111 CVV: 123", "card " + m("card") + " CVV: " + m("cvv")},
		{CVV, "cvc=4567&exp=12/30", "cvc=" + m("cvv") + "&exp=12/30"},
		{CVV, "security code 987", "security code 987"}, // two words without a delimiter: not a label
	}
	e := defaultEngine(t)
	for _, tt := range tests {
		t.Run(string(tt.class), func(t *testing.T) {
			got, st, err := e.Text(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got, "in: %q", tt.in)
			if tt.in != tt.want {
				assert.Positive(t, st.Redacted)
			}
		})
	}
}

// TestClassesNegative: look-alikes per class that must stay.
func TestClassesNegative(t *testing.T) {
	tests := []struct {
		class Class
		in    string
	}{
		{Bearer, "Use a Bearer token here"},
		{Bearer, "the bearer of this letter"},
		{Basic, "Basic authentication is deprecated"},
		{Basic, "Basic c29tZXRoaW5n"}, // "something": no colon
		{JWT, "eyJmb28iOiJiYXIifQ.eyJ4IjoxfQ.c2ln"},
		{JWT, "eyJhbGciOiJIUzI1NiJ9"},
		{AWSAccessKey, "AKIA12345"},
		{AWSAccessKey, "XAKIAIOSFODNN7EXAMPLE"},
		{AWSSecret, awsSec[:20] + " is not labelled"},
		{GCPAPIKey, "AIzaShort"},
		{Azure, "SharedAccessKeyName=RootManageSharedAccessKey"},
		{GitHubToken, "ghp_tooShort"},
		{GitLabToken, "glpat-short"},
		{SlackToken, "xoxo and hugs"},
		{SlackToken, "https://hooks.slack.com/"},
		{OpenAIKey, "pip install sk-learn scikit-learn"},
		{OpenAIKey, "sk-this-is-just-a-long-branch-name-in-lowercase"},
		{AnthropicKey, "sk-ant- prefix"},
		{StripeKey, "pk_live_4eC39HqLyjWDarjtT1zdp7dc"},
		{StripeKey, "pk_test_TYooMQauvdEDq54NiTphI7jx"},
		{PrivateKey, "-----BEGIN PUBLIC KEY-----\nMFkw\n-----END PUBLIC KEY-----"},
		{PrivateKey, "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----"},
		{Cookie, "cookie_consent=accepted"},
		{SessionID, "sessionStorage: 3 items; session_timeout=30"},
		{CSRF, "csrf_header_name: X-CSRF-Token"},
		{Password, "password_policy=strong; has_password: true; token_type: Bearer"},
		{Password, "keyboard: qwerty, monkey=banana, keyframes: 3, hotkey=k"},
		{Password, "max_tokens: 4096, input_tokens=1200, public_key=abc, primary_key: id"},
		{Password, "https://example.test:8443/a/b@c"},
		{Card, "4111111111111112"},
		{Card, "4111 1111 1111 1112"},
		{Card, "0.4111111111111111"},
		{Card, "1111111111111117"},
		{Card, "order 41111111111111111111"},
		{Card, "id4111111111111111 4111111111111111px"},
		{Card, "1,234,567,890,123,456"},
		{IBAN, "DE89370400440532013001"},
		{IBAN, "XX89370400440532013000"},
		{IBAN, "de89370400440532013000"},
		{CVV, "keyboard: 123, code: 456"},
		{CVV, "cvv abcd"},
	}
	e := defaultEngine(t)
	for _, tt := range tests {
		t.Run(string(tt.class), func(t *testing.T) {
			got, st, err := e.Text(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.in, got)
			assert.Zero(t, st.Redacted)
		})
	}
}

// TestIdempotent: redacting twice equals redacting once, and the second
// pass counts nothing.
func TestIdempotent(t *testing.T) {
	e := testEngine(t)
	var all []string
	for _, c := range loadCorpus(t) {
		all = append(all, c.Value, "password="+c.Value, `{"token": "`+strings.ReplaceAll(c.Value, "\n", `\n`)+`"}`)
	}
	for _, in := range all {
		once, _, err := e.Text(in)
		require.NoError(t, err)
		twice, st, err := e.Text(once)
		require.NoError(t, err)
		assert.Equal(t, once, twice)
		assert.Zero(t, st.Redacted, "second pass on %q", once)
	}
}

// TestDeterministic: the same input gives the same output and counts.
func TestDeterministic(t *testing.T) {
	e := testEngine(t)
	in := benchContext(32 << 10)
	first, st1, err := e.Text(in)
	require.NoError(t, err)
	for range 5 {
		again, st2, err := e.Text(in)
		require.NoError(t, err)
		require.Equal(t, first, again)
		require.Equal(t, st1, st2)
	}
}

// TestPEMBackToBack: a malformed block never swallows the next one.
func TestPEMBackToBack(t *testing.T) {
	e := defaultEngine(t)
	in := "-----BEGIN PRIVATE KEY----------END \n" + pemBlock + "\n" + pemBlock
	got, st, err := e.Text(in)
	require.NoError(t, err)
	assert.NotContains(t, got, "MHcCAQEEIBase64Body")
	assert.Equal(t, 3, st.ByClass["private_key"])
}
