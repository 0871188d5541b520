package app

import "github.com/toksweep/toksweep/client"

// scrubber returns a function that replaces every credential the options
// hold (the API key, the password in --url, credential-like --header
// values) with [REDACTED], by the client's rules. It is for text toksweep
// did not write itself and passes on, such as a server's metrics page quoted
// in an error: the client scrubs its own messages, this covers the other
// paths.
func (o *options) scrubber() func(string) string { return client.Scrubber(o.clientConfig()) }
