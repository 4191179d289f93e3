// Package redact is Gasoline's redaction gateway (SAFETY.md, "Redaction
// gateway"; ARCHITECTURE.md invariant 4): one engine and one versioned
// policy, applied at three stages — source (native host), server (before
// buffers and responses) and egress (before exports, files and model
// adapters). The rules are the same at every stage; [Stage] only labels
// [Counters].
//
// # Use
//
//	p, err := redact.LoadPolicy(path) // or redact.DefaultPolicy()
//	e, err := redact.New(p)           // invalid policy → error: fail closed
//	out, st, err := e.JSON(body)      // err wraps ErrBlocked: block the output
//	counters.Observe(redact.StageServer, st, err)
//
// Entry points: [Engine.Text] (free text; a whole JSON document is walked
// as JSON), [Engine.JSON], [Engine.JSONKeepTypes] (schema-bound JSON such
// as CDP events: numbers keep their type), [Engine.Value] (decoded Go values, e.g. tool
// results), [Engine.Headers], [Engine.HTTPHeader], [Engine.Header],
// [Engine.URL], [Engine.Form] and [Engine.Body] (by content type); [Fields]
// walks many string fields of one output with the first error sticking. All are
// safe for concurrent use, deterministic, and return (output, [Stats],
// error). Secrets become [Marker] text, "[REDACTED:<label>]"; redacting
// output again changes nothing.
//
// The daemon and the native host share one live policy file through
// [Store] (redaction.json, [PathIn]); other code reaches a stage through a
// [Gateway], which fails closed and feeds the session's [Counters].
//
// # What is redacted
//
// Value patterns, found anywhere in any string by one pass over it: bearer
// and basic credentials, JWTs (header decodes to {"alg":…}), AWS access key
// ids, GCP API keys, GitHub, GitLab, Slack (tokens and webhook URLs),
// OpenAI, Anthropic and Stripe secret keys (not pk_ publishable keys, which
// are public by design), PEM private-key blocks (whole; to the end of the
// text when the END line is missing), passwords in scheme://user:pass@,
// Luhn-valid card numbers with a card-network prefix, mod-97-valid IBANs of
// known countries, and user patterns from the policy.
//
// Key names, wherever a name sits beside a value — JSON members at any
// depth, name/value pair objects (HAR headers, storage items, CDP cookies),
// ["name","value"] pairs, form fields, query and fragment parameters,
// header maps, multipart parts, and name=value / "name": value / name: value
// forms in text. The name stays, the value goes: cookie values (names and
// Set-Cookie attributes stay), Authorization credentials (the scheme
// stays), session ids, CSRF tokens, card security codes, AWS secret keys,
// Azure account keys and SAS signatures, service-account private keys, and
// anything whose name has a password, secret, token, auth, credential,
// session, … part. Names are split into snake, kebab, dot and camelCase
// parts and matched by part, so "keyboard", "monkey", "tokenizer" and
// "keyframes" are not secret names; "token_type", "max_tokens",
// "sessionStorage" and "has_password" describe a secret rather than hold
// one and are not either (see classifyKey for the exact rules). Booleans
// and null under a secret name stay: they cannot hold a secret.
//
// JSON keeps its structure rules when it is embedded in a string (a body
// inside a tool result) and when it is cut off at the end (capture
// truncates long text): a truncated document is completed, walked, and cut
// at the same place again.
//
// # Fail closed
//
// A policy that does not load, parse or compile is an error wrapping
// [ErrPolicy]. Input over [Policy.MaxInputBytes], nesting deeper than
// 10,000, a value that cannot be marshalled, a nil *Engine, or a panic
// inside the engine is an error wrapping [ErrBlocked]; callers must block
// the output. Errors and [Stats] never contain input.
//
// # Limits worth knowing
//
// In free text an unquoted value ends at whitespace or one of & ; " ' ` < >
// (or , ) ] } followed by a space), so "password=two words" leaves
// "words"; quoted values, JSON, forms and headers have no such limit. An
// AWS secret key is only recognised under its name. An OAuth "code"
// parameter is not treated as a secret name (too generic). The corpus in
// testdata/secrets holds positives for every class and look-alikes that
// must survive.
package redact
