package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
)

// corpus returns every positive value, class by class.
func (g *gen) corpus() []Entry {
	var out []Entry
	add := func(class, value, secret string) {
		if secret == "" {
			secret = value
		}
		out = append(out, Entry{Class: class, Value: value, Secret: secret})
	}
	g.tokens(add)
	g.cloud(add)
	g.keyed(add)
	g.payment(add)
	return out
}

type adder func(class, value, secret string)

// tokens: bearer, basic, jwt, vendor API tokens, PEM keys.
func (g *gen) tokens(add adder) {
	for i := range 12 {
		tok := g.mixed(alnum+"-._~", g.between(24, 48))
		scheme := "Bearer "
		if i%4 == 3 {
			scheme = "bearer "
		}
		add("bearer", scheme+tok, tok)
	}
	for range 10 {
		creds := base64.StdEncoding.EncodeToString([]byte(g.pick(lower, g.between(4, 10)) + ":" + g.pick(pwChars, g.between(8, 16))))
		add("basic", "Basic "+creds, creds)
	}
	algs := []string{"HS256", "RS256", "ES256", "PS384", "EdDSA", "HS512"}
	for i := range 12 {
		head := fmt.Sprintf(`{"alg":%q,"typ":"JWT"}`, algs[i%len(algs)])
		if i%3 == 1 {
			head = fmt.Sprintf(`{"typ":"JWT","alg":%q,"kid":%q}`, algs[i%len(algs)], g.pick(hexLower, 16))
		}
		body := fmt.Sprintf(`{"sub":%q,"iat":%d,"exp":%d,"scope":"read write"}`, g.pick(alnum, 12), 1700000000+i, 1800000000+i)
		sig := g.pick(b64url, 43+43*(i%2))
		enc := base64.RawURLEncoding.EncodeToString
		add("jwt", enc([]byte(head))+"."+enc([]byte(body))+"."+sig, "")
	}
	for i := range 12 {
		p := []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}[i%6]
		v := p + g.mixed(alnum, 36)
		if p == "github_pat_" {
			v = p + g.mixed(alnum, 22) + "_" + g.mixed(alnum, 59)
		}
		add("github_token", v, "")
	}
	for i := range 10 {
		p := []string{"glpat-", "glpat-", "glpat-", "gldt-", "glrt-"}[i%5]
		add("gitlab_token", p+g.mixed(b64url, 20+i%3*6), "")
	}
	for i := range 7 {
		p := []string{"xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-", "xoxb-", "xoxp-"}[i]
		add("slack_token", p+g.digitsN(12)+"-"+g.digitsN(13)+"-"+g.mixed(alnum, 24), "")
	}
	for range 3 {
		path := "T" + g.pick(upper+digits, 8) + "/B" + g.pick(upper+digits, 10) + "/" + g.mixed(alnum, 24)
		add("slack_token", "https://hooks.slack.com/services/"+path, path)
	}
	for i := range 10 {
		var v string
		switch i % 4 {
		case 0:
			v = "sk-" + g.mixed(alnum, 48)
		case 1:
			v = "sk-proj-" + g.mixed(b64url, 156)
		case 2:
			v = "sk-svcacct-" + g.mixed(b64url, 120)
		default:
			v = "sk-admin-" + g.mixed(b64url, 80)
		}
		add("openai_key", v, "")
	}
	for i := range 10 {
		p := "sk-ant-api03-"
		if i%3 == 2 {
			p = "sk-ant-admin01-"
		}
		add("anthropic_key", p+g.mixed(b64url, 93)+"AA", "")
	}
	for i := range 10 {
		p := []string{"sk_live_", "sk_test_", "rk_live_", "rk_test_", "whsec_"}[i%5]
		add("stripe_key", p+g.mixed(alnum, []int{24, 99, 32}[i%3]), "")
	}
	kinds := []string{"RSA PRIVATE KEY", "PRIVATE KEY", "EC PRIVATE KEY", "OPENSSH PRIVATE KEY",
		"ENCRYPTED PRIVATE KEY", "DSA PRIVATE KEY", "PGP PRIVATE KEY BLOCK"}
	for i := range 10 {
		block, first := g.pem(kinds[i%len(kinds)], g.between(4, 12))
		add("private_key", block, first)
	}
}

// pem returns a PEM block with a random body and its first body line.
func (g *gen) pem(kind string, lines int) (string, string) {
	var b strings.Builder
	fmt.Fprintf(&b, "-----BEGIN %s-----\n", kind)
	first := ""
	for l := range lines {
		line := g.pick(b64, 64)
		if l == 0 {
			line = "MII" + line[3:]
			first = line
		}
		b.WriteString(line + "\n")
	}
	fmt.Fprintf(&b, "%s==\n-----END %s-----\n", g.pick(b64, 22), kind)
	return b.String(), first
}

// cloud: AWS, GCP and Azure credentials.
func (g *gen) cloud(add adder) {
	for i := range 10 {
		p := "AKIA"
		if i%3 == 2 {
			p = "ASIA"
		}
		add("aws_access_key", p+g.pick(upper+"234567", 16), "")
	}
	forms := []string{"aws_secret_access_key = %s", "AWS_SECRET_ACCESS_KEY=%s", `"SecretAccessKey": "%s"`,
		"aws_secret_access_key: %s", "secretAccessKey: '%s'"}
	for i := range 10 {
		s := g.mixed(b64, 40)
		add("aws_secret", fmt.Sprintf(forms[i%len(forms)], s), s)
	}
	for range 10 {
		add("gcp_api_key", "AIza"+g.mixed(b64url, 35), "")
	}
	for i := range 10 {
		block, first := g.pem("PRIVATE KEY", 6)
		sa := map[string]string{
			"type": "service_account", "project_id": fmt.Sprintf("demo-project-%d", i),
			"private_key_id": g.pick(hexLower, 40), "private_key": block,
			"client_email": fmt.Sprintf("svc-%d@demo-project-%d.iam.gserviceaccount.com", i, i),
			"client_id":    "1" + g.digitsN(20), "auth_uri": "https://accounts.google.com/o/oauth2/auth",
			"token_uri": "https://oauth2.googleapis.com/token",
		}
		raw, _ := json.Marshal(sa)
		add("gcp_service_account", string(raw), first)
	}
	for i := range 10 {
		acct := "acct" + g.pick(lower+digits, 8)
		switch i % 3 {
		case 0:
			key := g.mixed(b64, 86) + "=="
			add("azure", "DefaultEndpointsProtocol=https;AccountName="+acct+";AccountKey="+key+
				";EndpointSuffix=core.windows.net", key)
		case 1:
			key := g.mixed(b64, 43) + "="
			add("azure", "Endpoint=sb://"+acct+".servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey="+key, key)
		default:
			sig := url.QueryEscape(g.mixed(b64, 43) + "=")
			add("azure", "https://"+acct+".blob.core.windows.net/photos/cat.jpg?sv=2022-11-02&ss=b&srt=o&sp=r&se=2030-01-01T00:00:00Z&sig="+sig, sig)
		}
	}
}

// keyed: classes recognised by the name beside the value.
func (g *gen) keyed(add adder) {
	cookies := []string{"Cookie: theme=dark; _ga=GA1.2.%d.%d; prefs=%s", "Set-Cookie: __Host-id=%[3]s; Path=/; Secure; HttpOnly; SameSite=Lax",
		"cookie: uid=%[3]s", "Set-Cookie: remember=%[3]s; Max-Age=2592000; Domain=example.test"}
	for i := range 10 {
		v := g.mixed(alnum, 20)
		add("cookie", fmt.Sprintf(cookies[i%len(cookies)], g.between(1e8, 9e8), g.between(1e9, 2e9), v), v)
	}
	sessions := []string{"session_id=%s", "JSESSIONID=%s", "PHPSESSID=%s", "connect.sid=s%%3A%s", `"sessionId": "%s"`,
		"sid: %s", "ASP.NET_SessionId=%s", "laravel_session=%s", "session_token=%s", "x-session-token: %s",
		"sessionid=%s", `{"session": "%s"}`}
	for _, f := range sessions {
		v := g.mixed(alnum, 26)
		add("session_id", fmt.Sprintf(f, v), v)
	}
	csrfs := []string{"csrf_token=%s", "X-CSRF-Token: %s", "authenticity_token=%s", "csrfmiddlewaretoken=%s",
		"_csrf=%s", "XSRF-TOKEN=%s", "__RequestVerificationToken=%s", `"csrfToken": "%s"`, "x-xsrf-token: %s", "anti_csrf=%s"}
	for _, f := range csrfs {
		v := g.mixed(b64url, 32)
		add("csrf", fmt.Sprintf(f, v), v)
	}
	passwords := []string{"password=%s", "passwd: %s", `"pwd": "%s"`, "client_secret=%s", "api_key=%s",
		"apiKey: '%s'", "refresh_token=%s", "access_token=%s", "X-Api-Key: %s", "db_pass=%s", `"secret": "%s"`,
		"private_token=%s", "x-auth-token: %s", "passphrase=%s", `"new_password":"%s"`, "Ocp-Apim-Subscription-Key: %s"}
	for _, f := range passwords {
		v := g.mixed(pwChars, g.between(12, 24))
		add("password", fmt.Sprintf(f, v), v)
	}
	cvvs := []string{"CVV: %s", "cvc=%s", `"cvv": "%s"`, "security_code=%s", "cvv2: %s", "CVC %s",
		"card_code=%s", `"securityCode": "%s"`, "csc: %s", "CVV2=%s"}
	for i, f := range cvvs {
		add("cvv", fmt.Sprintf(f, g.digitsN(3+i%2)), "")
	}
	for range 10 {
		add("user", "EMP-"+g.digitsN(6), "")
	}
}

// payment: card numbers and IBANs.
func (g *gen) payment(add adder) {
	type brand struct {
		prefix string
		n      int
		sizes  []int
	}
	brands := []brand{{"4", 16, []int{4, 4, 4}}, {"4", 13, nil}, {"4", 19, []int{4, 4, 4, 4}},
		{"51", 16, []int{4, 4, 4}}, {"55", 16, []int{4, 4, 4}}, {"2221", 16, []int{4, 4, 4}},
		{"2720", 16, []int{4, 4, 4}}, {"34", 15, []int{4, 6}}, {"37", 15, []int{4, 6}},
		{"6011", 16, []int{4, 4, 4}}, {"3528", 16, []int{4, 4, 4}}, {"36", 14, []int{4, 6}},
		{"62", 16, []int{4, 4, 4}}, {"62", 19, []int{4, 4, 4, 4}}, {"6304", 16, []int{4, 4, 4}},
		{"65", 16, []int{4, 4, 4}}}
	for i := range 24 {
		b := brands[i%len(brands)]
		d := g.luhnNumber(b.prefix, b.n)
		switch {
		case i%3 == 1 && b.sizes != nil:
			d = group(d, " ", b.sizes...)
		case i%3 == 2 && b.sizes != nil:
			d = group(d, "-", b.sizes...)
		}
		add("card", d, "")
	}
	type country struct {
		code, shape string // shape: 'n' digit, 'a' upper letter, 'c' either
	}
	countries := []country{{"DE", "nnnnnnnnnnnnnnnnnn"}, {"GB", "aaaannnnnnnnnnnnnn"}, {"FR", "nnnnnnnnnncccccccccccnn"},
		{"ES", "nnnnnnnnnnnnnnnnnnnn"}, {"IT", "annnnnnnnnncccccccccccc"}, {"NL", "aaaannnnnnnnnn"},
		{"BE", "nnnnnnnnnnnn"}, {"CH", "nnnnncccccccccccc"}, {"AT", "nnnnnnnnnnnnnnnn"},
		{"PL", "nnnnnnnnnnnnnnnnnnnnnnnn"}, {"SE", "nnnnnnnnnnnnnnnnnnnn"}, {"NO", "nnnnnnnnnnn"},
		{"IE", "aaaannnnnnnnnnnnnn"}, {"PT", "nnnnnnnnnnnnnnnnnnnnn"}, {"DK", "nnnnnnnnnnnnnn"}, {"FI", "nnnnnnnnnnnnnn"}}
	for i, c := range countries {
		var b strings.Builder
		for _, s := range c.shape {
			switch s {
			case 'n':
				b.WriteString(g.digitsN(1))
			case 'a':
				b.WriteString(g.pick(upper, 1))
			default:
				b.WriteString(g.pick(upper+digits, 1))
			}
		}
		v := c.code + ibanCheck(c.code, b.String()) + b.String()
		if i%2 == 1 {
			v = every4(v)
		}
		add("iban", v, "")
	}
}

// every4 prints an IBAN in groups of four.
func every4(v string) string {
	var parts []string
	for len(v) > 4 {
		parts = append(parts, v[:4])
		v = v[4:]
	}
	return strings.Join(append(parts, v), " ")
}
