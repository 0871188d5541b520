package app

import (
	"errors"
	"io"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/internal/secrets"
	"github.com/toksweep/toksweep/report"
)

// scrubber returns a function that replaces every credential the options
// hold (the API key, the userinfo and credential-like query values of
// --url, --metrics-url and each --gpu-metrics-url, credential-like
// --header values), in every form the client's Scrubber finds, with
// [REDACTED]. The client scrubs its own messages; this covers everything
// else toksweep prints or saves.
func (o *options) scrubber() func(string) string { return o.secrets().Scrub }

// secrets is the Scrubber of the credentials the options hold.
func (o *options) secrets() secrets.Scrubber {
	return secrets.New(client.Config{BaseURL: o.URL, APIKey: o.APIKey, Headers: o.Headers, Variants: o.classVariants()}, append([]string{o.Work.MetricsURL}, o.Work.GPUURLs...)...)
}

// guardSecrets runs a command with stdout and stderr that scrub every
// known secret from what is written, with Go's standard logger (where
// net/http logs, quoting a server's bytes) routed to that stderr, and
// scrubs the error it returns: whatever a server echoes, no credential
// reaches the terminal.
func (o *options) guardSecrets(stdout, stderr io.Writer, run func(stdout, stderr io.Writer) error) error {
	s := o.secrets()
	out, errw := s.Writers(stdout, stderr)
	defer secrets.RouteLog(errw)()
	return scrubError(run(out, errw), s)
}

// scrubError returns err with its message scrubbed, keeping what Exit
// reads from it (a UsageError, whose Msg Exit prints, rebuilt;
// ErrInterrupted in the chain).
func scrubError(err error, s secrets.Scrubber) error {
	var ue *UsageError
	if err != nil && errors.As(err, &ue) && s.Scrub(err.Error()) != err.Error() {
		return &UsageError{Msg: s.Scrub(ue.Msg)}
	}
	return s.Error(err)
}

// scrubConfig redacts a known secret wherever else the recorded
// configuration repeats it: a header not named like a credential, any key
// or string of --extra-body, the model, the prompt source.
func (o *options) scrubConfig(r *report.RunConfig) {
	s := o.secrets()
	for k, v := range r.Headers {
		r.Headers[k] = s.Scrub(v)
	}
	for _, c := range r.Classes {
		for k, v := range c.Headers {
			c.Headers[k] = s.Scrub(v)
		}
	}
	if r.ExtraBody != nil { // a copy: o.ExtraBody is what is sent
		r.ExtraBody, _ = s.JSON(r.ExtraBody).(map[string]any)
	}
	r.Model, r.PromptSource = s.Scrub(r.Model), s.Scrub(r.PromptSource)
}
