package client

import (
	"cmp"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// redactedMark is what replaces a credential in any text toksweep writes.
const redactedMark = "[REDACTED]"

// minSecret is the shortest value scrubbed: a credential of 1 to 3
// characters hides nothing, and replacing every "a" or "b" would garble
// every message.
const minSecret = 4

// secretsOf lists every form of every credential that cfg makes the client
// send (or that the user named in urls, such as a metrics endpoint):
//   - the API key (sent as "Bearer KEY");
//   - the userinfo of each URL: user name, password, "user:password" and
//     its Basic encoding (base64, which is what goes on the wire);
//   - the values of credential-like query parameters (SensitiveQuery);
//   - the values of credential headers (SensitiveHeader by name, or any
//     value of the form "Bearer X" or "Basic X"), the credential after the
//     scheme alone, and for Basic the decoded "user:password" and password.
//
// Escaped, percent-encoded and split copies are found by scrub, not listed.
// A value shorter than minSecret is left out.
func secretsOf(cfg Config, urls ...string) []string {
	var s []string
	add := func(v string) {
		if v = strings.TrimSpace(v); len(v) >= minSecret {
			s = append(s, v)
		}
	}
	add(cfg.APIKey)
	for _, raw := range append([]string{cfg.BaseURL}, urls...) {
		for _, v := range urlSecrets(raw) {
			add(v)
		}
	}
	for _, h := range append([]http.Header{cfg.Headers}, variantHeaders(cfg)...) {
		for name, values := range h {
			for _, v := range values {
				for _, c := range headerSecrets(name, v) {
					add(c)
				}
			}
		}
	}
	// Their base64 and hex encodings, as a server may echo them (upper
	// case, or split by tags or invisible characters, is scrub's).
	for _, v := range slices.Clone(s) {
		b := []byte(v)
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
			add(enc.EncodeToString(b))
		}
		add(hex.EncodeToString(b))
	}
	// Longest first, so that no secret is left half-replaced by a shorter
	// one it contains.
	slices.SortFunc(s, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	return slices.Compact(s)
}

// urlSecrets lists the credentials in a URL: its userinfo in every form
// net/http sends it (Basic), and credential-like query values. A URL the
// parser rejects has everything between "//" and its last "@" taken as
// userinfo, as RedactURL drops it.
func urlSecrets(raw string) []string {
	u, err := url.Parse(raw)
	if err != nil {
		rest := raw
		if i := strings.Index(rest, "//"); i >= 0 {
			rest = rest[i+2:]
		}
		i := strings.LastIndex(rest, "@")
		if i < 0 {
			return nil
		}
		user, pass, _ := strings.Cut(rest[:i], ":")
		return append(basicSecrets(user, pass), rest[:i])
	}
	var s []string
	if u.User != nil {
		pass, _ := u.User.Password()
		s = append(basicSecrets(u.User.Username(), pass), u.User.String())
	}
	for name, values := range u.Query() {
		if SensitiveQuery(name) {
			s = append(s, values...)
		}
	}
	return s
}

// basicSecrets are user, password, "user:password" and its base64 (without
// padding, so that an echo with or without it matches).
func basicSecrets(user, pass string) []string {
	pair := user + ":" + pass
	return []string{user, pass, pair, base64.RawStdEncoding.EncodeToString([]byte(pair))}
}

// headerSecrets lists the credentials in one header value: the whole value
// and the part after the scheme when the header is a credential, plus the
// decoded pair of a Basic value.
func headerSecrets(name, value string) []string {
	scheme, cred, hasScheme := strings.Cut(strings.TrimSpace(value), " ")
	basic, bearer := strings.EqualFold(scheme, "Basic"), strings.EqualFold(scheme, "Bearer")
	if !SensitiveHeader(name) && !(hasScheme && (basic || bearer)) {
		return nil
	}
	s := []string{value}
	if hasScheme {
		s = append(s, cred)
	}
	if basic {
		cred = strings.TrimRight(strings.TrimSpace(cred), "=")
		s = append(s, cred)
		if pair, err := base64.RawStdEncoding.DecodeString(cred); err == nil {
			user, pass, _ := strings.Cut(string(pair), ":")
			s = append(s, string(pair), user, pass)
		}
	}
	return s
}

// SensitiveQuery reports whether a URL query parameter holds a credential:
// a name SensitiveHeader would flag (api-key, token, …), or "sig" (shared
// access signatures) or "code" (function keys).
func SensitiveQuery(name string) bool {
	n := strings.ToLower(name)
	return SensitiveHeader(n) || n == "sig" || n == "code"
}

// scrub removes every credential the client knows from s.
func (c *Client) scrub(s string) string { return scrubWith(c.secrets, s) }

// Scrubber returns a function that replaces every credential in cfg, and
// the userinfo and credential-like query values of urls, with [REDACTED],
// in any form scrub finds. It is for text that another package passes on:
// a metrics page quoted in an error, a model id, Go's own log lines, the
// configuration toksweep records.
func Scrubber(cfg Config, urls ...string) func(string) string {
	secrets := secretsOf(cfg, urls...)
	return func(s string) string { return scrubWith(secrets, s) }
}

// scrubWith replaces every occurrence of every secret in s. It finds a
// secret as written, and also as it survives an echo: JSON, Go or C
// escapes (sk\u002d…, \x2d), percent-encoding (%2D), HTML character
// references (&#45;), any of them applied twice, in any case, and cut by
// whitespace, control or invisible characters (U+200B) or HTML tags (a
// key split across two SSE data lines joined by a newline, or across a
// quoted "\n"; sk-PLA<b></b>NTED). The whole span of s that spells a
// secret is replaced.
func scrubWith(secrets []string, s string) string {
	if len(secrets) == 0 || s == "" {
		return s
	}
	for _, secret := range secrets {
		s = strings.ReplaceAll(s, secret, redactedMark)
	}
	folded := make([][]byte, 0, len(secrets))
	for _, secret := range secrets {
		if f := fold(secret).b; len(f) > 0 {
			folded = append(folded, f)
		}
	}
	// The cheap check first: most text holds no secret in any form.
	text := foldBytes(s)
	if !containsAny(text, folded) && cutSecret(text, folded) == 0 {
		return s
	}
	f := fold(s)
	var spans [][2]int
	if k := cutSecret(f.b, folded); k > 0 {
		end := len(f.b) - len(cutMarks(f.b))
		spans = append(spans, [2]int{f.from[end-k], f.to[end-1]})
	}
	for _, sec := range folded {
		for at := 0; ; {
			i := indexFrom(f.b, sec, at)
			if i < 0 {
				break
			}
			spans = append(spans, [2]int{f.from[i], f.to[i+len(sec)-1]})
			at = i + 1
		}
	}
	return replaceSpans(s, spans)
}

// variantHeaders are the headers of cfg's Variants.
func variantHeaders(cfg Config) []http.Header {
	var hs []http.Header
	for _, v := range cfg.Variants {
		hs = append(hs, v.Headers)
	}
	return hs
}
