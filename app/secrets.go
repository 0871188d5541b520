package app

import (
	"net/url"
	"sort"
	"strings"
)

// scrubber returns a function that replaces every credential the options
// hold (the API key, the password in --url, credential-like --header
// values) with [REDACTED]. It is for text toksweep did not write itself and
// passes on, such as a server's page quoted in an error: the client scrubs
// its own messages, this covers the other paths (server metrics).
func (o *options) scrubber() func(string) string {
	var secrets []string
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			secrets = append(secrets, s)
		}
	}
	add(o.APIKey)
	if u, err := url.Parse(o.URL); err == nil && u.User != nil {
		add(u.User.Username())
		p, _ := u.User.Password()
		add(p)
	}
	for name, vs := range o.Headers {
		if credentialHeader(name) {
			for _, v := range vs {
				add(v)
				if _, cred, ok := strings.Cut(v, " "); ok {
					add(cred) // "Bearer KEY": KEY alone is the secret
				}
			}
		}
	}
	// Longest first, so that no secret is left half-replaced by a shorter
	// one it contains.
	sort.Slice(secrets, func(i, j int) bool { return len(secrets[i]) > len(secrets[j]) })
	return func(s string) string {
		for _, secret := range secrets {
			s = strings.ReplaceAll(s, secret, "[REDACTED]")
		}
		return s
	}
}
