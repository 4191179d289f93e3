package redact

import "strings"

// keyKind says how a value under a secret name is rewritten.
type keyKind uint8

const (
	kindWhole     keyKind = iota // the whole value goes
	kindCookie                   // Cookie: a=1; b=2 — names stay, values go
	kindSetCookie                // Set-Cookie: the cookie value goes, attributes stay
	kindAuth                     // Authorization: the scheme stays, credentials go
)

// keyRule is the verdict on a secret name: the label its values get and how
// they are rewritten.
type keyRule struct {
	label string
	kind  keyKind
}

var (
	cookieRule    = keyRule{string(Cookie), kindCookie}
	setCookieRule = keyRule{string(Cookie), kindSetCookie}
	cookieValue   = keyRule{string(Cookie), kindWhole}
	authRule      = keyRule{string(Password), kindAuth}
)

// exactNames are whole names (normalized) with a fixed rule. They are checked
// before the name is split into parts.
var exactNames = map[string]keyRule{
	"cookie": cookieRule, "cookies": cookieRule, "setcookie": setCookieRule,
	"authorization": authRule, "proxyauthorization": authRule,
	"accountkey": {string(Azure), kindWhole}, "sharedaccesskey": {string(Azure), kindWhole},
	"sharedaccesssignature": {string(Azure), kindWhole}, "sig": {string(Azure), kindWhole},
	"authenticitytoken": {string(CSRF), kindWhole}, "requestverificationtoken": {string(CSRF), kindWhole},
	"csrfmiddlewaretoken": {string(CSRF), kindWhole},
}

// Word lists for name parts (lowercase). A part is one snake, kebab, dot or
// camelCase segment: "X-CSRF-Token" → x csrf token, "refreshToken" →
// refresh token, "keyboard" → keyboard.
var (
	// passwordParts are secret on their own, wherever they sit.
	passwordParts = set("password", "passwords", "passwd", "pwd", "pw", "passphrase", "passcode",
		"secret", "secrets", "token", "tokens", "auth", "oauth", "authorization",
		"credential", "credentials", "creds", "jwt", "bearer", "apikey", "apikeys",
		"pin", "otp", "totp", "hotp", "mfa", "signature", "privatetoken")
	// passwordSuffixes make a single part secret when it ends with one:
	// "clientsecret", "accesstoken", "userpassword". Never prefixes, so
	// "tokenizer" and "secretary" stay.
	passwordSuffixes = []string{"password", "passwd", "passphrase", "secret", "token", "tokens", "apikey"}
	sessionParts     = set("session", "sessions", "sid", "sessid")
	sessionSuffixes  = []string{"sessionid", "sessid", "sessiontoken", "sessionkey", "sessioncookie"}
	cvvParts         = set("cvv", "cvc", "csc", "cvv2", "cvc2", "cvn", "securitycode", "cardcode")
	cardParts        = set("cardnumber", "cardnum", "cardno", "ccnumber", "ccnum", "creditcard", "creditcardnumber")
	// secretKeyPrefixes make "<prefix>key" secret as one part: "apikey",
	// "accesskey", "signingkey". Anything else ending in "key" ("monkey",
	// "hotkey", "turkey") is not.
	secretKeyPrefixes = set("api", "private", "access", "secret", "secretaccess", "account",
		"sharedaccess", "signing", "sign", "master", "license", "licence", "encryption", "client",
		"auth", "ssh", "consumer", "app", "subscription", "admin", "webhook", "hmac", "session",
		"service", "server", "dev", "developer", "partner", "merchant", "functions", "host")
	// publicKeyQualifiers make "<qualifier> key" (several parts) NOT secret:
	// "primary_key", "publicKey", "sort-key". Any other "<x> key" is.
	publicKeyQualifiers = set("public", "publishable", "primary", "foreign", "sort", "partition",
		"cache", "hot", "row", "map", "lookup", "index", "unique", "composite", "group", "react",
		"object", "idempotency", "dedup", "dedupe", "routing", "shard", "hash", "range", "i18n",
		"translation", "message", "label", "shortcut", "keyboard", "modifier", "storage", "query",
		"item", "entry", "event", "list", "dict", "column", "field", "table", "next", "prev",
		"previous", "last", "first", "start", "end", "sequence", "foreignkey", "cursor", "state")
	// metaParts after the secret part describe it rather than hold it:
	// "token_type", "password_policy", "sessionStorage", "auth_url".
	metaParts = set("type", "types", "kind", "count", "counts", "length", "len", "size", "limit",
		"limits", "max", "min", "expiry", "expires", "expiration", "exp", "ttl", "timeout",
		"lifetime", "age", "duration", "url", "uri", "urls", "endpoint", "endpoints", "path",
		"name", "names", "format", "policy", "policies", "strength", "hint", "required",
		"enabled", "disabled", "mode", "version", "label", "field", "fields", "storage", "start",
		"started", "end", "ended", "provider", "providers", "method", "methods", "scheme",
		"domain", "host", "status", "error", "errors", "message", "prompt", "placeholder",
		"visible", "visibility", "rule", "rules", "pattern", "minlength", "maxlength", "changed",
		"updated", "created", "at", "used", "remaining", "total", "callback", "redirect",
		"location", "manager", "header", "param")
	// leadParts just before the secret part make a flag or a count:
	// "has_password", "max_sessions", "use_token".
	leadParts = set("has", "is", "show", "use", "no", "max", "min", "num", "total", "should",
		"can", "allow", "enable", "enabled", "remember", "require", "requires", "need", "needs",
		"count")
	// countParts before "tokens" make it a count of model tokens:
	// "max_tokens", "inputTokens", "cache_read_input_tokens", "maxtokens".
	countParts = set("max", "min", "num", "total", "count", "input", "output", "prompt",
		"completion", "cached", "reasoning", "used", "remaining", "context", "thinking")
)

// set builds a lookup set.
func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// classifyKey returns the rule for a key name, or false when its value is
// not secret by name. The rules, in order:
//
//  1. the policy's allow_keys win, then its secret_keys;
//  2. exact names: cookie, set-cookie, authorization, Azure's AccountKey and
//     SharedAccessSignature, sig, Rails/ASP.NET/Django CSRF fields;
//  3. the name is split into parts and each part is tested against word
//     lists (never raw substrings): csrf/xsrf anywhere → csrf; session, sid,
//     …sessionid → session_id; cvv, cvc, security code → cvv; card number →
//     card; iban; secret+access+key → aws_secret; private key → private_key;
//     password, secret, token, auth, … and parts ending in password, secret,
//     token, apikey → password; "<x> key" with x not a public qualifier, or
//     one part "<api|access|signing|…>key" → password;
//  4. a meta part after the secret one ("token_type", "password_policy",
//     "sessionStorage") or a lead part before it ("has_password",
//     "max_tokens") makes the name not secret.
func (c *compiled) classifyKey(name string) (keyRule, bool) {
	if name == "" || len(name) > 256 {
		return keyRule{}, false
	}
	norm := normalizeKey(name)
	if c.allow[norm] {
		return keyRule{}, false
	}
	if c.secret[norm] {
		return keyRule{string(Password), kindWhole}, true
	}
	if r, ok := exactNames[norm]; ok {
		return r, true
	}
	return classifyParts(splitKey(name))
}

// classifyParts applies rules 3 and 4 of classifyKey to lowercase parts.
func classifyParts(parts []string) (keyRule, bool) {
	best, first := -1, -1
	var label Class
	for i := range parts {
		l, ok := partClass(parts, i)
		if !ok {
			continue
		}
		if first < 0 {
			first = i
		}
		if r := rank(l); best < 0 || r < best {
			best, label = r, l
		}
	}
	if first < 0 {
		return keyRule{}, false
	}
	for _, p := range parts[first+1:] {
		if metaParts[p] {
			return keyRule{}, false
		}
	}
	if first > 0 && leadParts[parts[first-1]] {
		return keyRule{}, false
	}
	return keyRule{string(label), kindWhole}, true
}

// rank orders labels when one name has several secret parts: the most
// specific wins ("session_token" is a session_id, "csrf_token" a csrf).
func rank(l Class) int {
	switch l {
	case CSRF:
		return 0
	case SessionID:
		return 1
	case CVV:
		return 2
	case Card:
		return 3
	case IBAN:
		return 4
	case AWSSecret:
		return 5
	case PrivateKey:
		return 6
	case Azure:
		return 7
	}
	return 9
}

// partClass tests part i of a split name.
func partClass(parts []string, i int) (Class, bool) {
	p := parts[i]
	if t := strings.TrimRight(p, "0123456789"); t != "" && !cvvParts[p] {
		p = t // "password2", "token_1"
	}
	prev, next := "", ""
	if i > 0 {
		prev = parts[i-1]
	}
	if i+1 < len(parts) {
		next = parts[i+1]
	}
	switch {
	case strings.Contains(p, "csrf") || strings.Contains(p, "xsrf"):
		return CSRF, true
	case sessionParts[p] || hasAnySuffix(p, sessionSuffixes):
		return SessionID, true
	case cvvParts[p] || p == "security" && next == "code" || p == "card" && (next == "code" || next == "verification"):
		return CVV, true
	case cardParts[p] || (p == "card" || p == "cc") && (next == "number" || next == "num" || next == "no") ||
		p == "credit" && next == "card":
		return Card, true
	case p == "iban":
		return IBAN, true
	case p == "secretaccesskey" || p == "key" && prev == "access" && i >= 2 && parts[i-2] == "secret":
		return AWSSecret, true
	case p == "privatekey" || p == "key" && prev == "private" && next == "":
		return PrivateKey, true
	case p == "pass" && i > 0:
		return Password, true
	case passwordParts[p]:
		return tokensCount(p, prev)
	case hasAnySuffix(p, passwordSuffixes):
		return tokensCount(p, "")
	case (p == "key" || p == "keys") && next == "" && prev != "" && !publicKeyQualifiers[prev]:
		return Password, true
	case len(p) > 3 && strings.HasSuffix(p, "key") && secretKeyPrefixes[p[:len(p)-3]]:
		return Password, true
	}
	return "", false
}

// tokensCount rejects "tokens" used as a count: "max_tokens", "inputTokens",
// "maxtokens". Everything else it passes through as a password part.
func tokensCount(p, prev string) (Class, bool) {
	if !strings.HasSuffix(p, "tokens") {
		return Password, true
	}
	if countParts[prev] || countParts[strings.TrimSuffix(p, "tokens")] {
		return "", false
	}
	return Password, true
}

// hasAnySuffix reports whether p ends with one of the suffixes.
func hasAnySuffix(p string, suffixes []string) bool {
	for _, s := range suffixes {
		if strings.HasSuffix(p, s) {
			return true
		}
	}
	return false
}

// splitKey splits a name into lowercase parts at every non-alphanumeric byte
// and at camelCase boundaries ("APIKey" → api key, "sessionID" → session id).
// Digits stay with the letters before them ("cvv2").
func splitKey(name string) []string {
	parts := make([]string, 0, 4)
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			parts = append(parts, strings.ToLower(name[start:end]))
		}
		start = -1
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !isAlnum(c) {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		if isUpper(c) {
			p := name[i-1]
			lowerNext := i+1 < len(name) && isLower(name[i+1])
			if isLower(p) || isDigit(p) || isUpper(p) && lowerNext {
				flush(i)
				start = i
			}
		}
	}
	flush(len(name))
	return parts
}

// normalizeKey lowercases a name and drops everything but letters and
// digits: "X-Api-Key" → "xapikey".
func normalizeKey(name string) string {
	var b strings.Builder
	b.Grow(len(name))
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case isUpper(c):
			b.WriteByte(c + 'a' - 'A')
		case isLower(c) || isDigit(c):
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLower(c byte) bool { return c >= 'a' && c <= 'z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isAlnum(c byte) bool { return isUpper(c) || isLower(c) || isDigit(c) }

// isWord reports whether c continues a word: letters, digits and '_'.
func isWord(c byte) bool { return wordTable[c] }

var wordTable = byteSet("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
