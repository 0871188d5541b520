package client

import (
	"net/url"
	"strings"
)

// RedactURL renders a URL for messages and saved output: without userinfo,
// without fragment, and with a non-empty query replaced by "?…" (a query
// may hold a key, as in ?api-key=). It never returns what lies between
// "//" and the last "@" of the authority, even for a URL that does not
// parse (a password with a stray "@", "/" or "%", say); such a URL is shown
// as scheme://host-ish text, or as "(unparsable URL)".
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || strings.Contains(u.Opaque, "@") || strings.Contains(u.Path, "@") ||
		u.User != nil && u.Host == "" {
		// The parser failed, or put an "@" where userinfo may have been
		// meant ("http://u:12/34@h", "u:p@h"), or found no host after
		// the userinfo: read the text instead.
		return redactText(raw)
	}
	u.User = nil
	u.ForceQuery = false
	if u.RawQuery != "" {
		u.RawQuery = "…"
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String()
}

// redactText is RedactURL for a URL the parser cannot be trusted with:
// everything up to the last "@" after "//" is dropped (userinfo, however
// odd: it may hold "@", "/", "?" or "#"), then the query and fragment.
// Dropping too much is the safe error: such a URL is invalid anyway.
func redactText(raw string) string {
	scheme, rest := "", raw
	if i := strings.Index(raw, "//"); i >= 0 {
		scheme, rest = raw[:i+2], raw[i+2:]
	}
	if i := strings.LastIndex(rest, "@"); i >= 0 {
		rest = rest[i+1:]
	}
	query := ""
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		if rest[i] == '?' && i+1 < len(rest) && rest[i+1] != '#' {
			query = "?…"
		}
		rest = rest[:i]
	}
	if rest == "" && raw != "" {
		return "(unparsable URL)"
	}
	return scheme + rest + query
}

// sensitiveWords are the parts of a header (or query parameter) name that
// mark its value as a credential.
var sensitiveWords = []string{"auth", "key", "token", "secret", "cookie", "password", "passwd",
	"session", "credential", "signature"}

// SensitiveHeader reports whether a header's value is likely a credential,
// by its name: one containing auth, key, token, secret, cookie, password,
// passwd, session, credential or signature, in any case. Such values are
// never printed or saved.
func SensitiveHeader(name string) bool {
	n := strings.ToLower(name)
	for _, w := range sensitiveWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// showURL renders u for messages, as RedactURL does.
func showURL(u *url.URL) string { return RedactURL(u.String()) }
