package htmlreport

import (
	"slices"
	"strings"
)

// MetricsURL is the full definitions, linked from the page.
const MetricsURL = "https://github.com/toksweep/toksweep/blob/main/docs/metrics.md"

// term is one figure's definition in words, for a reader of the page: it
// covers the table columns whose levels.csv name starts with one of
// prefixes, or, for a table-only column, whose heading is one of heads.
// docs/metrics.md holds the exact definitions; these say the same in a
// sentence or two.
type term struct {
	Name     string
	Text     string
	prefixes []string
	heads    []string
}

// glossary lists the terms in the order the page shows them.
var glossary = []term{
	{Name: "C (concurrency)", prefixes: []string{"concurrency"},
		Text: "How many requests the load generator keeps in flight at once: as soon as one ends, the next starts. In an open-loop run it is the cap on requests in flight."},
	{Name: "rate/s (offered rate)", prefixes: []string{"rate", "offered_rps"},
		Text: "Open loop: requests are sent at this mean rate per second, at random instants, whether or not earlier ones have finished. offered/s is the rate actually planned over the level."},
	{Name: "rep", prefixes: []string{"repeat"},
		Text: "Which repetition of the level the row is, counted from 1."},
	{Name: "ok, fail", prefixes: []string{"requests_ok", "requests_failed"},
		Text: "Measured requests that succeeded, and those that failed for any reason (an HTTP error, an error sent inside the stream, a timeout, a cut stream). Warm-up requests are never counted."},
	{Name: "TTFT (time to first token)", prefixes: []string{"ttft_"},
		Text: "From just before a request is sent to the arrival of its first generated token: the wait in the server's queue plus the processing of the prompt. In an open-loop run it counts from the instant the request was scheduled, so a late sender cannot hide a wait. p50, p95 and p99 are the values that 50%, 95% and 99% of the successful requests stay at or under."},
	{Name: "decode tok/s", prefixes: []string{"decode_tps_"},
		Text: "How fast a stream runs once it has started: a request's output tokens after the first, divided by the time from its first token to its last. p10 is the speed the slowest tenth of requests stay at or under."},
	{Name: "e2e tok/s", prefixes: []string{"e2e_tps_"},
		Text: "A request's output tokens divided by its whole duration, from sending to the end of the stream: the rate a user experiences, waiting for the first token included."},
	{Name: "ITL (inter-token latency)", prefixes: []string{"itl_"},
		Text: "The time per token between consecutive pieces of a stream, pooled over every successful request of the level (a piece carrying several tokens counts once per token). max is the single longest."},
	{Name: "max gap p95", prefixes: []string{"max_gap_"},
		Text: "Each request's longest pause between two tokens after the first; the value 95% of requests stay at or under."},
	{Name: "stalled", prefixes: []string{"stall_share"},
		Text: "The share of successful requests that paused for more than 1 second at least once after their first token."},
	{Name: "rebuffer p95, smooth", prefixes: []string{"rebuffer_", "smooth_share"},
		Text: "A reader reading at the stated pace sometimes catches up with the stream and waits: the rebuffer ratio is the total wait divided by the reading time (0: never waited). rebuffer p95 is the value 95% of requests stay at or under; smooth is the share of requests the reader never waited on."},
	{Name: "! and *", heads: []string{""},
		Text: "Marks beside a level: ! the load generator itself may have limited the level (its figures may describe the load generator, not the server; the notes under the tables say why); * the level had no steady state."},
	{Name: "output tok/s, total tok/s", prefixes: []string{"aggregate_"},
		Text: "What the server delivers: output tokens (and, for total, prompt tokens too) of all requests together, counted over the level's steady-state window, per second."},
	{Name: "req/s", prefixes: []string{"requests_per_s", "achieved_rps"},
		Text: "Successful requests that ended in the steady-state window, per second. achieved/s (open loop) is the rate at which requests finished over the level."},
	{Name: "window s", prefixes: []string{"window_"},
		Text: "The length of the steady-state window: the part of the level when the load was fully applied, without the ramp-up and the last requests draining. A highlighted window means the level never settled and the whole level was used."},
	{Name: "in-flight, peak in-flight", prefixes: []string{"inflight_"},
		Text: "The mean number of requests on the wire over the window (close to C when the load generator keeps up; highlighted when it did not), and the most at once."},
	{Name: "dispatch p99", prefixes: []string{"dispatch_delay_"},
		Text: "Open loop: how late the load generator sent a request after its scheduled instant; the value 99% of requests stay at or under. A high value means the load generator, not the server, fell behind."},
	{Name: "errors", heads: []string{"errors"},
		Text: "Failed requests by kind (for example an HTTP status, a timeout, an error inside the stream)."},
	{Name: "end reason", prefixes: []string{"end_reason"},
		Text: "Why the level stopped: completed its requests, reached its time limit, was cancelled, or was aborted because every request failed the same way."},
	{Name: "SLO", prefixes: []string{"slo_"}, heads: []string{"SLO"},
		Text: "Whether the level met every service-level objective given for the run, and if not which ones failed, with the measured values."},
	{Name: "goodput", prefixes: []string{"goodput_"},
		Text: "The share of finished requests that succeeded and met every per-request objective, and those good requests per second."},
	{Name: "stability", prefixes: []string{"unstable"},
		Text: "Open loop: a level is unstable when the server could not keep up with the offered rate (completions fell behind arrivals, or the queue kept growing). Its latencies then depend on how long the level ran, and its throughput is the server's maximum."},
	{Name: "server figures", prefixes: []string{"server_"},
		Text: "The server's own metrics, read from its metrics endpoint during each level: requests running and waiting, the share of its KV cache in use, the share of prompt tokens found in its prefix cache, and its own mean TTFT, queue time and prompt-processing (prefill) time. scrapes is how many readings the level got."},
}

// matches reports whether t covers the column of levels.csv name name
// (empty for a table-only column) and heading head.
func (t term) matches(name, head string) bool {
	if name == "" {
		return slices.Contains(t.heads, head)
	}
	return slices.ContainsFunc(t.prefixes, func(p string) bool { return strings.HasPrefix(name, p) })
}

// definitions are the terms of the columns the tables show, in glossary
// order, and the columns no term covers (named by levels.csv name, or by
// heading).
func definitions(tables []tableView) (shown []term, undefined []string) {
	used := make([]bool, len(glossary))
	for _, tv := range tables {
		for _, c := range tv.Cols {
			i := slices.IndexFunc(glossary, func(t term) bool { return t.matches(c.Name, c.Head) })
			switch {
			case i >= 0:
				used[i] = true
			case c.Name != "":
				undefined = append(undefined, c.Name)
			default:
				undefined = append(undefined, c.Head)
			}
		}
	}
	for i, t := range glossary {
		if used[i] {
			shown = append(shown, t)
		}
	}
	return shown, undefined
}
