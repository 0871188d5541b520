package app

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/client/promscrape"
	"github.com/toksweep/toksweep/internal/english"
	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sim"
	"github.com/toksweep/toksweep/sweep"
	"github.com/toksweep/toksweep/workload"
)

// earlyStopShare is the share of successful requests ending with
// finish_reason "stop" above which a level gets a warning: its decode
// figures then rest on streams shorter than asked for.
const earlyStopShare = 0.20

// workloadFlags are the flags of what is sent (prompt sources besides
// --prompt and --prompt-file, output length) and of the server's own
// metrics.
func workloadFlags(o *options) []cli.Flag {
	f := &o.Flags
	return []cli.Flag{
		&cli.StringFlag{Name: "dataset", Destination: &f.Dataset, Usage: "replay a dataset: F.jsonl, one request per line ({\"prompt\": ...} or {\"messages\": [...]}, optional max_tokens), or a ShareGPT F.json with --dataset-format sharegpt"},
		&cli.StringFlag{Name: "dataset-format", Destination: &f.DatasetFormat, Usage: "jsonl, sharegpt, or otel (OpenTelemetry traces, with --multi-turn) (default: jsonl for a .jsonl file)"},
		&cli.StringFlag{Name: "input-tokens", Destination: &f.InputTokens, Action: mode.Given[string](&f.InputTokensSet), Usage: "synthetic prompts of about N tokens, N[:STDDEV], e.g. 4000 or 4000:400; each request gets a unique prefix so prefix caching cannot flatter the figures"},
		&cli.IntFlag{Name: "shared-prefix-tokens", Destination: &f.SharedPrefixTokens, Usage: "with --input-tokens: the first K tokens are the same in every request, to measure prefix caching on purpose"},
		&cli.Int64Flag{Name: "seed", Destination: &o.Seed, Action: mode.Given[int64](&o.SeedSet), Usage: "seed of the request order (a permutation of the prompt set), of the synthetic text and of --sim's step jitter"},
		&cli.BoolFlag{Name: "ignore-eos", Destination: &f.IgnoreEOS, Usage: `send "ignore_eos": true (a vLLM extension; other servers may ignore it) so that outputs run to max_tokens`},
		&cli.IntFlag{Name: "min-tokens", Action: into(&f.MinTokens), Usage: `send "min_tokens": N (a vLLM extension; other servers may ignore it)`},
		&cli.StringFlag{Name: "metrics-url", Destination: &f.MetricsURL, Usage: "the server's Prometheus endpoint, sampled during each level (default: --url with /v1 replaced by /metrics, when it answers); off to disable"},
		&cli.DurationFlag{Name: "metrics-interval", Value: promscrape.DefaultInterval, Destination: &f.MetricsInterval, Usage: "time between two scrapes of --metrics-url (and --gpu-metrics-url) during a level"},
		gpuMetricsFlag(o),
	}
}

// workSettings is what the workload and server-metrics flags chose.
type workSettings struct {
	Set             *workload.Set
	options         workload.Options // what Set was loaded with (a class's dataset= is loaded the same way)
	MetricsURL      string           // --metrics-url as given: "" derives it from --url
	MetricsOff      bool
	MetricsInterval time.Duration
	IgnoreEOS       bool
	sampler         *promscrape.Sampler    // set once the endpoint answered (findMetrics)
	scrub           func(string) string    // removes credentials from the endpoint's words (findMetrics)
	GPUURLs         []string               // --gpu-metrics-url
	gpu             *promscrape.GPUSampler // set once every GPU endpoint answered (findGPUs)
	scrubGPU        func(string) string
}

// Bounds on the sizes the sweep flags give (docs/guide.md, "Bounds"); the
// prompt sources' own bounds are workload's.
const (
	maxRequests  = 1_000_000 // --requests and --warmup: each request is a Record held until its level is written
	maxRepeat    = 1000
	maxExtraBody = 1 << 20 // bytes of --extra-body
)

// checkBounds refuses sizes over their bounds. It runs first in prompt,
// after counts and levels and before any input is read or parsed.
func (o *options) checkBounds() error {
	switch {
	case o.MaxTokens > workload.MaxOutputTokens:
		return usagef("invalid --max-tokens %d: at most %d, toksweep's bound", o.MaxTokens, workload.MaxOutputTokens)
	case o.Requests > maxRequests:
		return usagef("invalid --requests %d: at most %d per level, toksweep's bound", o.Requests, maxRequests)
	case o.Warmup > maxRequests:
		return usagef("invalid --warmup %d: at most %d per level, toksweep's bound", o.Warmup, maxRequests)
	case o.Repeat > maxRepeat:
		return usagef("invalid --repeat %d: at most %d, toksweep's bound", o.Repeat, maxRepeat)
	case len(o.Flags.ExtraBody) > maxExtraBody:
		return usagef("invalid --extra-body: %d bytes, at most %d, toksweep's bound", len(o.Flags.ExtraBody), maxExtraBody)
	}
	return nil
}

// promptOwned refuses, beside a mode that sets each request's prompt and
// lengths (promptOwner: a trace replay), the flags that set them.
func (o *options) promptOwned() error {
	f := &o.Flags
	for _, m := range modes() {
		po, ok := m.(promptOwner)
		if !ok {
			continue
		}
		from := po.PromptsFrom(&o.Line)
		if from == "" {
			continue
		}
		for _, c := range []struct {
			flag string
			set  bool
		}{
			{"--prompt", f.PromptSet},
			{"--prompt-file", f.PromptFile != ""},
			{"--dataset", f.Dataset != ""},
			{"--input-tokens", f.InputTokensSet},
			{"--max-tokens", f.MaxTokensSet},
			{"--min-tokens", f.MinTokens != nil},
		} {
			if c.set {
				return usagef("%s does not apply to %s", c.flag, from)
			}
		}
	}
	return nil
}

// prompt loads the prompt set from the one source the flags name.
func (o *options) prompt() error {
	if err := o.checkBounds(); err != nil {
		return err
	}
	if err := o.promptOwned(); err != nil {
		return err
	}
	f := &o.Flags
	wo := workload.Options{
		Prompt: f.Prompt, PromptSet: f.PromptSet, PromptFile: f.PromptFile,
		Dataset: f.Dataset, Format: f.DatasetFormat,
		SharedPrefixTokens: f.SharedPrefixTokens, Seed: o.Seed,
		IgnoreSourceMaxTokens: f.MaxTokensSet, DefaultPrompt: sim.EssayPrompt,
	}
	for _, m := range modes() {
		if ps, ok := m.(promptShaper); ok {
			if err := ps.Prompts(&o.Line, &wo); err != nil {
				return err
			}
		}
	}
	if raw := f.InputTokens; f.InputTokensSet {
		n, sd, err := parseInputTokens(raw)
		if err != nil {
			return err
		}
		wo.InputTokens, wo.InputStddev = n, sd
	}
	set, err := workload.Load(wo)
	if err != nil {
		return &UsageError{Msg: err.Error()}
	}
	o.Work.options = wo
	o.Work.Set, o.PromptSource, o.Prompt = set, set.Source, set.Prompts[0].Text
	o.Warnings = append(o.Warnings, datasetWarnings(set, o.API, wo.Dataset)...)
	for _, m := range modes() {
		if ps, ok := m.(promptShaper); ok {
			o.PromptSource += ps.Loaded(&o.Line, set, o.API)
		}
	}
	return nil
}

// datasetWarnings says what of a dataset is not sent as it is written:
// ShareGPT conversations skipped for want of a prompt/answer pair, and
// conversations flattened to "role: content" text for --api completions.
func datasetWarnings(set *workload.Set, api client.API, name string) []string {
	var w []string
	if set.Skipped > 0 {
		w = append(w, fmt.Sprintf("--dataset %s: %d conversations skipped (no human turn followed by a model turn); %d prompts used",
			name, set.Skipped, len(set.Prompts)))
	}
	conv := 0
	for _, p := range set.Prompts {
		if len(p.Messages) > 0 {
			conv++
		}
	}
	if api == client.Completions && conv > 0 {
		w = append(w, fmt.Sprintf("--dataset %s: %d of %d prompts are chat conversations; --api completions sends them flattened to \"role: content\" lines (use --api chat to send them as messages)",
			name, conv, len(set.Prompts)))
	}
	return w
}

// metrics checks --metrics-url and --metrics-interval.
func (o *options) metrics() error {
	o.Work.MetricsURL, o.Work.MetricsInterval = o.Flags.MetricsURL, o.Flags.MetricsInterval
	o.Work.MetricsOff = strings.EqualFold(o.Work.MetricsURL, "off")
	if o.Work.MetricsInterval < promscrape.MinInterval {
		return usagef("invalid --metrics-interval %v: want %v or more, such as 1s", o.Work.MetricsInterval, promscrape.MinInterval)
	}
	if u := o.Work.MetricsURL; u != "" && !o.Work.MetricsOff {
		if p, err := url.Parse(u); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return usagef("invalid --metrics-url %q: want http(s)://HOST:PORT/metrics, or off", promscrape.ShowURL(u))
		}
	}
	return o.checkGPUMetrics()
}

// parseInputTokens parses N or N:STDDEV.
func parseInputTokens(raw string) (n, sd int, err error) {
	bad := usagef("invalid --input-tokens %q: want N or N:STDDEV in tokens, e.g. 4000 or 4000:400", raw)
	ns, sds, spread := strings.Cut(strings.TrimSpace(raw), ":")
	if n, err = strconv.Atoi(ns); err != nil || n < 1 {
		if errors.Is(err, strconv.ErrRange) && ns[0] != '-' {
			n = math.MaxInt // too high: the bound below says so
		} else {
			return 0, 0, bad
		}
	}
	if spread {
		if sd, err = strconv.Atoi(sds); err != nil || sd < 0 {
			return 0, 0, bad
		}
	}
	if n > workload.MaxInputTokens || sd > workload.MaxInputTokens {
		return 0, 0, usagef("invalid --input-tokens %q: at most %d tokens, toksweep's bound", raw, workload.MaxInputTokens)
	}
	return n, sd, nil
}

// outputLength checks the output-length flags and sends them as vLLM's
// extensions, and refuses non-streaming requests. It runs after body.
func (o *options) outputLength() error {
	if v, ok := o.ExtraBody["stream"]; ok && v != true {
		return usagef(`--extra-body sets "stream": %s, but toksweep measures streamed responses only: without streaming, the time to first token cannot be told apart from the rest of the request`, jsonText(v))
	}
	ext := map[string]any{}
	if o.Flags.IgnoreEOS {
		ext["ignore_eos"] = true
		o.Work.IgnoreEOS = true
	}
	if o.Flags.MinTokens != nil {
		n := *o.Flags.MinTokens
		if n < 1 || n > o.MaxTokens {
			return usagef("invalid --min-tokens %d: want 1 to --max-tokens (%d)", n, o.MaxTokens)
		}
		for _, p := range o.Work.Set.Prompts {
			if p.MaxTokens > 0 && p.MaxTokens < n {
				return usagef("--min-tokens %d exceeds the output target of prompt %d (%d tokens); give --max-tokens to override the dataset's targets", n, p.ID, p.MaxTokens)
			}
		}
		ext["min_tokens"] = n
	}
	for k, v := range ext {
		if old, ok := o.ExtraBody[k]; ok && old != v {
			return usagef("--extra-body sets %q to %s and a flag sets it to %s: give it once", k, jsonText(old), jsonText(v))
		}
		if o.ExtraBody == nil {
			o.ExtraBody = map[string]any{}
		}
		o.ExtraBody[k] = v
	}
	return nil
}

// first is the prompt of the pre-flight request (stamped 0 when synthetic).
func (w *workSettings) first() client.Prompt {
	p := w.Set.Prompts[0]
	if w.Set.Stamp != nil {
		p = w.Set.Stamp.Apply(p, 0)
	}
	return p
}

// serverSampler samples the server's metrics during each level, when
// findMetrics found them, and the GPUs' when findGPUs did.
func (w *workSettings) serverSampler() sweep.ServerSampler {
	if w.sampler == nil && w.gpu == nil {
		return nil
	}
	return func(ctx context.Context, _ int, loadEnd <-chan struct{}) func() *promscrape.LevelMetrics {
		stop := func() *promscrape.LevelMetrics { return &promscrape.LevelMetrics{NoServer: true} }
		if w.sampler != nil {
			stop = w.sampler.StartLevel(ctx, loadEnd)
		}
		stopGPU := func() *promscrape.GPUMetrics { return nil }
		if w.gpu != nil {
			stopGPU = w.gpu.Start(ctx)
		}
		return func() *promscrape.LevelMetrics {
			m := stop()
			if m != nil && w.scrub != nil { // a failed scrape may quote a page that echoes the credentials
				m.Error = w.scrub(m.Error)
			}
			if g := stopGPU(); g != nil && m != nil {
				g.Error, m.GPU = w.scrubGPU(g.Error), g
			}
			return m
		}
	}
}

// findMetrics looks for the server's Prometheus endpoint: --metrics-url, or
// the one derived from --url. A derived endpoint that does not answer, or
// exports none of the metrics toksweep reads, is noted and skipped; an
// explicit one is an error.
func (w *workSettings) findMetrics(ctx context.Context, o *options, stderr io.Writer) error {
	if w.MetricsOff {
		return nil
	}
	raw, explicit := w.MetricsURL, w.MetricsURL != ""
	if !explicit {
		raw = metricsURLFor(o.URL)
	}
	s := &promscrape.Sampler{
		URL: raw, Interval: w.MetricsInterval, Header: metricsHeader(raw, o),
		Client: metricsClient(o),
	}
	w.scrub = o.scrubber()
	snap, err := s.Scrape(ctx)
	switch {
	case err != nil && explicit:
		return errors.New("--metrics-url: " + w.scrub(err.Error()))
	case err != nil:
		fmt.Fprintf(stderr, "toksweep: no server metrics (%s); the server_* columns stay empty\n", w.scrub(err.Error()))
		return nil
	case !snap.Known():
		fmt.Fprintf(stderr, "toksweep: %s exports none of the vLLM metrics toksweep reads; the server_* columns stay empty\n", promscrape.ShowURL(raw))
		return nil
	}
	w.sampler = s
	fmt.Fprintf(stderr, "toksweep: server metrics from %s, sampled in each level from %v in (gaps doubling up to %v) and at its load's end\n",
		promscrape.ShowURL(raw), promscrape.FirstSample, s.Interval)
	return nil
}

// metricsClient is the scrapers' HTTP client (the server's metrics, the
// GPUs'): its own small pool, TLS verified unless --insecure.
func metricsClient(o *options) *http.Client {
	return &http.Client{Transport: &http.Transport{
		Proxy: http.ProxyFromEnvironment, MaxIdleConnsPerHost: 2,
		TLSClientConfig: &tls.Config{InsecureSkipVerify: o.Insecure}, //nolint:gosec // explicit opt-in
	}}
}

// metricsURLFor derives the metrics endpoint from the API base URL: the
// trailing /v1 path is replaced by /metrics (http://h:8000/v1 →
// http://h:8000/metrics).
func metricsURLFor(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return base
	}
	p := strings.TrimSuffix(u.Path, "/")
	p = strings.TrimSuffix(p, "/v1")
	u.Path, u.RawPath, u.RawQuery, u.Fragment = p+"/metrics", "", "", ""
	return u.String()
}

// metricsHeader is what a scrape carries: the API's credentials and
// headers only when the endpoint is on the API's own scheme and host, so
// that a --metrics-url elsewhere never receives them.
func metricsHeader(metricsURL string, o *options) http.Header {
	m, err1 := url.Parse(metricsURL)
	a, err2 := url.Parse(o.URL)
	if err1 != nil || err2 != nil || m.Scheme != a.Scheme || m.Host != a.Host {
		return nil
	}
	h := o.Headers.Clone()
	if h == nil {
		h = http.Header{}
	}
	if o.APIKey != "" {
		h.Set("Authorization", "Bearer "+o.APIKey)
	}
	return h
}

// levelNotes are the lines printed under a level's status line: the
// server's own figures, and warnings about short outputs or failed scrapes.
func (o *options) levelNotes(s report.LevelStats) string {
	var b strings.Builder
	if sv := s.Server; sv.Scraped {
		preempted := ""
		if p := sv.Raw.Preemptions; p.OK {
			preempted = fmt.Sprintf(", preemptions %.0f", p.Delta)
		}
		if a := sv.Raw.SpecAcceptance(); !math.IsNaN(a) { // a speculative server
			preempted += fmt.Sprintf(", draft acceptance %s (%.2f accepted per draft)", pct(a), sv.Raw.SpecAcceptedPerDraft())
		}
		fmt.Fprintf(&b, "\n  server: running %s, waiting %s, KV cache %s%s, prefix hits %s%s; TTFT %s (queue %s, prefill %s)",
			fmtRate(sv.RunningMean), fmtRate(sv.WaitingMean), pct(sv.KVUsageMean), fewSamples(sv.Scrapes), pct(sv.PrefixHitRate), preempted,
			msText(sv.TTFTMean), msText(sv.QueueMean), msText(sv.PrefillMean))
		if raw := sv.Raw; raw != nil && raw.Failures > 0 {
			fmt.Fprintf(&b, "\ntoksweep: warning: %s: %d scrapes of the server's metrics failed: %s", report.LevelName(s), raw.Failures, raw.Error)
		}
	}
	b.WriteString(gpuNotes(s))
	if s.RequestsOK > 0 && float64(s.FinishStop) > earlyStopShare*float64(s.RequestsOK) {
		fmt.Fprintf(&b, "\ntoksweep: warning: %s: %d of %d requests ended early (finish_reason stop; output tokens mean %.0f, min %d): decode figures rest on short streams",
			report.LevelName(s), s.FinishStop, s.RequestsOK, s.CompletionTokensMean, s.CompletionTokensMin)
		if o.Work.IgnoreEOS {
			b.WriteString("; the server seems to ignore ignore_eos")
		} else {
			b.WriteString("; --ignore-eos or --min-tokens ask vLLM-like servers for full-length outputs")
		}
	}
	return b.String()
}

// fewGaugeSamples is the count of gauge samples under which a level's
// server line says how many its means rest on.
const fewGaugeSamples = 5

// fewSamples is the caveat after a level's gauge means when they rest on
// few samples: " (1 sample)", " (3 samples)", " (no sample)"; "" from
// fewGaugeSamples up.
func fewSamples(n int) string {
	switch {
	case n >= fewGaugeSamples:
		return ""
	case n == 0:
		return " (no sample)"
	}
	return " (" + english.Plural(n, "sample") + ")"
}

func pct(v float64) string {
	if v != v { // NaN
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*v)
}

func msText(d time.Duration) string {
	if d == report.NoSample {
		return "-"
	}
	return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond))
}
