package report

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toksweep/toksweep/client"
)

// Column is one per-level figure. Columns, in order, is the one list that
// levels.csv, summary.json, the console tables, report.html and the column
// tables of the docs are rendered from: adding a figure means adding a
// Column here, its computation in Summarize, a test, and a line of docs
// (docs/metrics.md's formula; the column tables are generated).
type Column struct {
	Name string // levels.csv header and summary.json key; "" for a table-only column
	Unit string // unit in the docs; "" when none
	Def  string // one line of definition, for the docs
	Out  Outputs

	Table Table  // the table people see it in; 0: files only
	Group string // title over consecutive heads of the same group
	Head  string // heading under the group
	Left  bool   // left-aligned (text); numbers are right-aligned

	Decimals       int // levels.csv and summary.json decimals of a number
	PeopleDecimals int // console and report.html decimals of a number

	Value func(*LevelStats) Value
	// Optional: Text replaces the formatted Value on the console and in
	// report.html; Flag highlights the cell in report.html; Show hides the
	// column from its table unless it holds for the levels shown.
	Text func(*LevelStats) string
	Flag func(*LevelStats) bool
	Show func([]LevelStats) bool
	// Heads, when set, is the heading for the levels shown, in place of
	// Head: the load column's, in the levels' mode's words.
	Heads func([]LevelStats) string

	family    string // the err_<class> columns, documented as one line
	omitEmpty bool   // summary.json leaves the key out when there is no value
}

// Outputs says which files a column is written to.
type Outputs int

const (
	InCSV   Outputs          = 1 << iota // a levels.csv column
	InJSON                               // a summary.json key
	InFiles = InCSV | InJSON             // both, the usual case
)

// Table is a table of per-level figures on the console and in report.html.
type Table int

const (
	NoTable        Table = iota // files only
	LeadTable                   // leads every table: C and the repeat
	SingleTable                 // what one user sees
	AggregateTable              // what the server delivers
	ServerTable                 // the server's own metrics, when scraped
	SmoothTable                 // what a reader sees: gaps, stalls, rebuffering
	GPUTable                    // the GPUs' power, memory and energy, when sampled
)

// CSV formats the column's cell of s in levels.csv.
func (c Column) CSV(s *LevelStats) string { return c.Value(s).csv(c.Decimals) }

// People is the column's cell of s on the console and in report.html.
func (c Column) People(s *LevelStats) string {
	if c.Text != nil {
		return c.Text(s)
	}
	return c.Value(s).people(c.PeopleDecimals)
}

// ColumnsIn returns the columns written to out, in order.
func ColumnsIn(out Outputs) []Column {
	var cols []Column
	for _, c := range Columns {
		if c.Out&out != 0 {
			cols = append(cols, c)
		}
	}
	return cols
}

// Constructors for the usual kinds of column, so that the list below reads
// as a table.

func msColumn(name, def string, t Table, group, head string, f func(*LevelStats) Value) Column {
	return Column{Name: name, Unit: "ms", Def: def, Out: InFiles, Table: t, Group: group, Head: head,
		Decimals: msDecimals, PeopleDecimals: 1, Value: f}
}

func tpsColumn(name, def string, t Table, group, head string, f func(*LevelStats) float64) Column {
	return Column{Name: name, Unit: "tok/s", Def: def, Out: InFiles, Table: t, Group: group, Head: head,
		Decimals: tpsDecimals, PeopleDecimals: 1, Value: func(s *LevelStats) Value { return number(f(s)) }}
}

func countColumn(name, unit, def string, f func(*LevelStats) int) Column {
	return Column{Name: name, Unit: unit, Def: def, Out: InFiles, Value: func(s *LevelStats) Value { return count(f(s)) }}
}

func textColumn(name, def string, f func(*LevelStats) string) Column {
	return Column{Name: name, Def: def, Out: InFiles, Value: func(s *LevelStats) Value { return text(f(s)) }}
}

func shown(c Column, t Table, group, head string) Column {
	c.Table, c.Group, c.Head = t, group, head
	return c
}

// Console group titles of the single-stream table.
const (
	ttftGroup   = "TTFT ms (queue+prefill)"
	decodeGroup = "decode tok/s (after first token)"
	e2eGroup    = "e2e tok/s (incl. TTFT)"
	itlGroup    = "ITL ms (per token)"
	serverGroup = "server means ms"
)

// Columns is the registry of per-level figures, in levels.csv order.
// Related figures sit together, as a spreadsheet reads them: who and how
// many, TTFT, the per-stream rates (decode, then e2e), latency, ITL, the
// aggregate with its window, the SLO verdict, output lengths, the error
// classes, and the server's own figures. A new figure goes beside its
// relatives (readers find levels.csv columns by header name, not by
// position), and shows in a table where it belongs.
var Columns = slices.Concat(
	[]Column{
		concurrencyColumn(),
		classColumn,
		{Name: "repeat", Def: "repetition index of the level, 0-based (the console and report.html count runs from 1)", Out: InFiles, Table: LeadTable, Head: "rep", Show: anyRepeat,
			Value: func(s *LevelStats) Value { return count(s.Repeat) },
			Text:  func(s *LevelStats) string { return strconv.Itoa(s.Repeat + 1) }},
		shown(countColumn("requests_ok", "requests", "successful measured requests", func(s *LevelStats) int { return s.RequestsOK }), SingleTable, "", "ok"),
		{Name: "requests_failed", Unit: "requests", Def: "failed measured requests, any class", Out: InFiles,
			Table: SingleTable, Head: "fail", Value: func(s *LevelStats) Value { return count(s.RequestsFailed) },
			Flag: func(s *LevelStats) bool { return s.RequestsFailed > 0 }},
		msColumn("ttft_p50_ms", "TTFT, p50", SingleTable, ttftGroup, "p50", func(s *LevelStats) Value { return millis(s.TTFTP50) }),
		msColumn("ttft_p95_ms", "TTFT, p95", SingleTable, ttftGroup, "p95", func(s *LevelStats) Value { return millis(s.TTFTP95) }),
		msColumn("ttft_p99_ms", "TTFT, p99 (the max when n < 100)", SingleTable, ttftGroup, "p99", func(s *LevelStats) Value { return millis(s.TTFTP99) }),
		shownWhen(anyReasoning, msColumn("ttfc_p50_ms", "TTFC, p50", SingleTable, ttftGroup, "TTFC p50", func(s *LevelStats) Value { return millis(s.TTFCP50) })),
		tpsColumn("decode_tps_p50", "decode rate per request, p50", SingleTable, decodeGroup, "p50", func(s *LevelStats) float64 { return s.DecodeTPSP50 }),
		tpsColumn("decode_tps_p10", "decode rate per request, p10", SingleTable, decodeGroup, "p10", func(s *LevelStats) float64 { return s.DecodeTPSP10 }),
		tpsColumn("decode_tps_mean", "decode rate per request, mean", SingleTable, decodeGroup, "mean", func(s *LevelStats) float64 { return s.DecodeTPSMean }),
		tpsColumn("e2e_tps_p50", "e2e rate per request, p50", SingleTable, e2eGroup, "p50", func(s *LevelStats) float64 { return s.E2ETPSP50 }),
		shownWhen(anySLO, tpsColumn("e2e_tps_p10", "e2e rate per request, p10 (the slowest tenth; what `--slo-e2e-tps` checks)", SingleTable, e2eGroup, "p10", func(s *LevelStats) float64 { return s.E2ETPSP10 })),
		tpsColumn("e2e_tps_mean", "e2e rate per request, mean", SingleTable, e2eGroup, "mean", func(s *LevelStats) float64 { return s.E2ETPSMean }),
		msColumn("e2e_latency_p50_ms", "e2e latency per request (End − Start), p50", NoTable, "", "", func(s *LevelStats) Value { return millis(s.E2ELatencyP50) }),
		msColumn("e2e_latency_p90_ms", "e2e latency per request, p90 (vLLM's p90 E2EL)", NoTable, "", "", func(s *LevelStats) Value { return millis(s.E2ELatencyP90) }),
		msColumn("e2e_latency_p95_ms", "e2e latency per request, p95 (the --slo-e2e-p95 figure)", NoTable, "", "", func(s *LevelStats) Value { return millis(s.E2ELatencyP95) }),
		msColumn("e2e_latency_p99_ms", "e2e latency per request, p99 (the max when n < 100)", NoTable, "", "", func(s *LevelStats) Value { return millis(s.E2ELatencyP99) }),
		msColumn("itl_p50_ms", "ITL per token, weighted p50", SingleTable, itlGroup, "p50", func(s *LevelStats) Value { return millis(s.ITLP50) }),
		msColumn("itl_p99_ms", "ITL per token, weighted p99", SingleTable, itlGroup, "p99", func(s *LevelStats) Value { return millis(s.ITLP99) }),
		msColumn("itl_max_ms", "ITL per token, max", SingleTable, itlGroup, "max", func(s *LevelStats) Value { return millis(s.ITLMax) }),
		// Table only: the markers that the footnotes explain.
		{Head: "", Table: AggregateTable, Value: func(s *LevelStats) Value { return text(markers(*s)) },
			Text: func(s *LevelStats) string { return markers(*s) }},
		tpsColumn("aggregate_output_tps", "output tokens arriving in the window / window_s", AggregateTable, "", "output tok/s", func(s *LevelStats) float64 { return s.AggregateOutputTPS }),
		tpsColumn("aggregate_total_tps", "output plus prompt tokens / window_s", AggregateTable, "", "total tok/s (incl. prompt)", func(s *LevelStats) float64 { return s.AggregateTotalTPS }),
		{Name: "requests_per_s", Unit: "req/s", Def: "successful requests ending in the window / window_s", Out: InFiles,
			Table: AggregateTable, Head: "req/s", Decimals: rpsDecimals, PeopleDecimals: 2,
			Value: func(s *LevelStats) Value { return number(s.RequestsPerS) }},
		{Name: "window_s", Unit: "s", Def: "steady-state window length", Out: InFiles,
			Table: AggregateTable, Head: "window s", Decimals: tpsDecimals, PeopleDecimals: 1,
			Value: func(s *LevelStats) Value { return number(s.windowSeconds()) },
			Flag:  func(s *LevelStats) bool { return s.WindowFallback }},
		{Name: "window_fallback", Unit: "bool", Def: "the window is the whole level (no steady state)", Out: InFiles,
			Value: func(s *LevelStats) Value { return boolean(s.WindowFallback) }},
		{Name: "inflight_mean", Unit: "requests", Def: "mean measured requests in flight over the window", Out: InFiles,
			Table: AggregateTable, Head: "in-flight", Decimals: tpsDecimals, PeopleDecimals: 2,
			Value: func(s *LevelStats) Value { return number(s.InflightMean) },
			Flag:  func(s *LevelStats) bool { return s.ClientLimited }},
		{Name: "client_limited", Unit: "bool", Def: "see client_limited above", Out: InFiles,
			Value: func(s *LevelStats) Value { return boolean(s.ClientLimited) }},
		textColumn("client_limited_reason", "the evidence of the checks that fired", func(s *LevelStats) string { return s.ClientLimitedReason }),
		// Table only: the non-zero error classes, "http_5xx=1 timeout=2".
		{Table: AggregateTable, Head: "errors", Left: true,
			Value: func(s *LevelStats) Value { return text(s.Errors.String()) },
			Flag:  func(s *LevelStats) bool { return s.Errors.String() != "" }},
		{Name: "end_reason", Def: "why the level stopped: `completed`, `deadline`, `canceled`, `aborted`; `crashed` or `failed` when report recovered it from the level file", Out: InFiles,
			Table: AggregateTable, Head: "end reason", Left: true, Value: func(s *LevelStats) Value { return text(string(s.EndReason)) }},
		{Name: "slo_pass", Unit: "bool", Def: "the level meets every `--slo-*` criterion; empty without an SLO", Out: InFiles,
			Value: func(s *LevelStats) Value {
				if s.SLO == nil {
					return Value{}
				}
				return boolean(s.SLO.Pass)
			}},
		{Name: "slo_failed", Def: "the failing criteria with their measured values, `; `-separated", Out: InFiles,
			Value: func(s *LevelStats) Value { return text(sloFailed(s.SLO)) }},
		// Table only: the verdict, when the run has an SLO.
		{Table: AggregateTable, Head: "SLO", Left: true, Value: func(s *LevelStats) Value { return text(sloText(s.SLO)) },
			Flag: func(s *LevelStats) bool { return s.SLO != nil && !s.SLO.Pass },
			Show: anySLO},
		{Name: "completion_tokens_mean", Unit: "tokens", Def: "U per successful request, mean", Out: InFiles,
			Decimals: tpsDecimals, PeopleDecimals: 1, Value: func(s *LevelStats) Value { return number(s.CompletionTokensMean) }},
		{Name: "completion_tokens_min", Unit: "tokens", Def: "U, min", Out: InFiles,
			Value: func(s *LevelStats) Value { return countIf(s.RequestsOK > 0, s.CompletionTokensMin) }},
		{Name: "completion_tokens_max", Unit: "tokens", Def: "U, max", Out: InFiles,
			Value: func(s *LevelStats) Value { return countIf(s.RequestsOK > 0, s.CompletionTokensMax) }},
		countColumn("finish_stop", "requests", "successful, finish_reason `stop`", func(s *LevelStats) int { return s.FinishStop }),
		countColumn("finish_length", "requests", "successful, finish_reason `length`", func(s *LevelStats) int { return s.FinishLength }),
		textColumn("token_source", "`usage`, `chunks` or `mixed`", func(s *LevelStats) string { return string(s.TokenSource) }),
		countColumn("token_count_mismatch", "requests", "successful with usage, \\|K − U\\| / U > 2%", func(s *LevelStats) int { return s.TokenCountMismatch }),
	},
	sessionColumns(),
	traceColumns(),
	errorColumns(),
	[]Column{
		// summary.json only: the client's health, which the client-limit
		// checks read and a saved run is re-summarised with.
		{Name: "health", Out: InJSON, Value: func(s *LevelStats) Value { return object(s.Health) }},
	},
	serverColumns(),
	gpuColumns(),
	smoothColumns(),
	openColumns(),
)

// shownWhen is c, shown in its table only when show says so.
func shownWhen(show func([]LevelStats) bool, c Column) Column {
	c.Show = show
	return c
}

// anySLO shows the SLO's columns when a level was judged against one.
func anySLO(stats []LevelStats) bool {
	return slices.ContainsFunc(stats, func(s LevelStats) bool { return s.SLO != nil })
}

// anyReasoning shows TTFC beside TTFT when a successful request reasoned.
func anyReasoning(stats []LevelStats) bool {
	return slices.ContainsFunc(stats, func(s LevelStats) bool { return s.ReasoningRequests > 0 })
}

// errorColumns are err_<class>, one count per client.ErrorClasses class;
// summary.json groups them as "errors" (and the tables show one cell, above).
func errorColumns() []Column {
	var cols []Column
	for _, class := range client.ErrorClasses {
		cols = append(cols, Column{Name: "err_" + string(class), Unit: "requests",
			Def: "failed requests per class, one column per class", Out: InCSV, family: "err_<class>",
			Value: func(s *LevelStats) Value { return count(s.Errors.Count(class)) }})
	}
	return append(cols, Column{Name: "errors", Out: InJSON, Value: func(s *LevelStats) Value { return object(s.Errors) }})
}

// serverColumns are the server's own figures (ServerStats), empty when the
// server was not scraped, then what they were computed from.
func serverColumns() []Column {
	show := func(stats []LevelStats) bool {
		return slices.ContainsFunc(stats, func(s LevelStats) bool { return s.Server.Scraped })
	}
	mean := func(name, unit, def, head string, decimals, people int, f func(*ServerStats) float64) Column {
		return Column{Name: name, Unit: unit, Def: def, Out: InFiles, Table: ServerTable, Head: head, Show: show,
			Decimals: decimals, PeopleDecimals: people, Value: func(s *LevelStats) Value { return number(f(&s.Server)) }}
	}
	ms := func(name, def, head string, f func(*ServerStats) time.Duration) Column {
		c := msColumn(name, def, ServerTable, serverGroup, head, func(s *LevelStats) Value { return millis(f(&s.Server)) })
		c.Show = show
		return c
	}
	return []Column{
		{Name: "server_scrapes", Unit: "scrapes", Def: "in-level scrapes of the server's metrics; empty when not scraped", Out: InFiles,
			Table: ServerTable, Head: "scrapes", Show: show,
			Value: func(s *LevelStats) Value { return countIf(s.Server.Scraped, s.Server.Scrapes) }},
		mean("server_running_mean", "requests", "server's running requests, mean over the in-level scrapes", "running", tpsDecimals, 1,
			func(s *ServerStats) float64 { return s.RunningMean }),
		mean("server_waiting_mean", "requests", "server's waiting requests, the same", "waiting", tpsDecimals, 1,
			func(s *ServerStats) float64 { return s.WaitingMean }),
		mean("server_kv_usage_mean", "fraction", "server's KV-cache usage, the same (4 decimals)", "KV usage", fracDecimals, 2,
			func(s *ServerStats) float64 { return s.KVUsageMean }),
		mean("server_prefix_hit_rate", "fraction", "server's prefix-cache hits / queries over the level (4 decimals)", "prefix hits", fracDecimals, 2,
			func(s *ServerStats) float64 { return s.PrefixHitRate }),
		ms("server_ttft_mean_ms", "server's TTFT histogram, mean over the level", "TTFT", func(s *ServerStats) time.Duration { return s.TTFTMean }),
		ms("server_queue_mean_ms", "server's queue-time histogram, mean over the level", "queue", func(s *ServerStats) time.Duration { return s.QueueMean }),
		ms("server_prefill_mean_ms", "server's prefill-time histogram, mean over the level", "prefill", func(s *ServerStats) time.Duration { return s.PrefillMean }),
		specColumn("server_spec_draft_tokens", "tokens", "speculative decoding's draft tokens over the level; empty without its counters", "draft tok", 0,
			func(s *ServerStats) float64 { return s.SpecDraftTokens }),
		specColumn("server_spec_accepted_tokens", "tokens", "of which the target model accepted", "accepted", 0,
			func(s *ServerStats) float64 { return s.SpecAccepted }),
		specColumn("server_spec_acceptance", "fraction", "accepted / draft tokens (4 decimals)", "acceptance", fracDecimals,
			func(s *ServerStats) float64 { return s.SpecAcceptance }),
		specColumn("server_spec_accepted_per_draft", "tokens", "accepted tokens / drafts: the mean accepted length", "acc/draft", fracDecimals,
			func(s *ServerStats) float64 { return s.SpecAcceptedPerDraft }),
		// summary.json only, when scraped: the sums and counts the server_*
		// columns come from, so that a saved run can be re-summarised.
		{Name: "server_metrics", Out: InJSON, omitEmpty: true, Value: func(s *LevelStats) Value {
			if s.Server.Raw == nil {
				return Value{}
			}
			return object(s.Server.Raw)
		}},
	}
}

// sloFailed lists a level's failed SLO criteria, "" without an SLO.
func sloFailed(r *SLOResult) string {
	if r == nil {
		return ""
	}
	return strings.Join(r.Failed, "; ")
}
