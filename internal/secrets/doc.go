// Package secrets owns keeping a run's credentials out of everything
// toksweep prints or saves beyond the client's own messages: a Scrubber of
// the secrets a run knows (the API key, the userinfo and credential-like
// query values of its URLs, credential-like header values, in every form
// client.Scrubber finds), writers that scrub each write, Go's standard log
// routed through them, and scrubbed copies of errors and decoded JSON.
// Which error types must keep their kind when scrubbed (a usage error) is
// the caller's.
package secrets
