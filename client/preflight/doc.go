// Package preflight owns the checks a sweep makes of its server before any
// load: the model, from /models when --model is not given (Model), and one
// real request read to its end (Run), so that an unreachable URL, a wrong
// key or model, a refused prompt or a prompt over the listed context length
// fails in seconds, with the server's own reason and the flag to change
// (a --url without its /v1 is named), while a server that is only busy is
// warned of and swept. ContextHint reads a context-length refusal the same
// way for the sweep. A mistake in the command line is a mode.UsageError.
package preflight
