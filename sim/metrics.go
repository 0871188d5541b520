package sim

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Histogram buckets, in seconds, as vLLM defines them for these metrics.
var (
	ttftBuckets = []float64{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5,
		0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0}
	queueBuckets = []float64{0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0,
		30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0}
)

// histogram is a Prometheus histogram: per-bucket counts (not cumulative;
// the writer accumulates), a sum and a count.
type histogram struct {
	bounds []float64
	counts []uint64
	sum    float64
	count  uint64
}

func newHistogram(bounds []float64) histogram {
	return histogram{bounds: bounds, counts: make([]uint64, len(bounds))}
}

func (h *histogram) observe(d time.Duration) {
	v := d.Seconds()
	h.sum += v
	h.count++
	if i, _ := slices.BinarySearch(h.bounds, v); i < len(h.bounds) {
		h.counts[i]++
	}
}

// metrics is what /metrics and Stats report. The scheduler updates it a few
// times per step under one mutex.
type metrics struct {
	mu           sync.Mutex
	genTokens    int64
	promptTokens int64
	success      map[string]int64 // by finish_reason
	aborts       int64
	preemptions  int64
	prefixQuery  int64 // prompt tokens looked up in the prefix cache
	prefixHits   int64 // of which found
	kvUsage      float64
	ttft, queue  histogram
	prefill      histogram

	spec                                      bool // DraftTokens > 0: the spec_decode counters are served
	specDrafts, specDraftTokens, specAccepted int64
	gpu                                       gpuMeter
}

func newMetrics() *metrics {
	m := &metrics{
		success: map[string]int64{"length": 0, "stop": 0},
		ttft:    newHistogram(ttftBuckets),
		queue:   newHistogram(queueBuckets),
		prefill: newHistogram(queueBuckets), // vLLM uses the queue-time buckets
	}
	m.gpu.epoch = time.Now()
	m.gpu.lastAt = m.gpu.epoch
	return m
}

func (m *metrics) lock() func() { m.mu.Lock(); return m.mu.Unlock }

func (m *metrics) admitted(wait time.Duration) { defer m.lock()(); m.queue.observe(wait) }

// firstToken records a request's first token: ttft since its arrival, and
// prefill since it was scheduled (vLLM's request_prefill_time_seconds).
func (m *metrics) firstToken(ttft, prefill time.Duration) {
	defer m.lock()()
	m.ttft.observe(ttft)
	m.prefill.observe(prefill)
}
func (m *metrics) finished(reason string) { defer m.lock()(); m.success[reason]++ }
func (m *metrics) aborted(n int64)        { defer m.lock()(); m.aborts += n }
func (m *metrics) addPrompt(n int)        { defer m.lock()(); m.promptTokens += int64(n) }
func (m *metrics) addGenerated(n int)     { defer m.lock()(); m.genTokens += int64(n) }
func (m *metrics) setKV(usage float64)    { defer m.lock()(); m.kvUsage = usage }
func (m *metrics) preempted()             { defer m.lock()(); m.preemptions++ }

// prefixLookup counts one admission's prefix-cache lookup, in tokens, as
// vLLM's prefix_cache_queries and prefix_cache_hits do.
func (m *metrics) prefixLookup(queried, hit int) {
	defer m.lock()()
	m.prefixQuery += int64(queried)
	m.prefixHits += int64(hit)
}

// Stats is a snapshot of the engine, for tests and for callers that want to
// show what the simulator did.
type Stats struct {
	Running         int   // sequences in the batch
	Waiting         int   // requests queued for a slot
	GeneratedTokens int64 // output tokens emitted, all requests
	PromptTokens    int64 // prompt tokens of admitted requests, cached ones included
	Served          int64 // requests that generated their last token
	Aborted         int64 // requests dropped before finishing (client gone, injected cut)
	Preemptions     int64 // running requests evicted for want of KV blocks
	// PrefixQueried and PrefixHits are the prompt tokens looked up in the
	// prefix cache and found there (vllm:prefix_cache_queries_total and
	// vllm:prefix_cache_hits_total).
	PrefixQueried, PrefixHits int64
}

// promWriter writes Prometheus text exposition, one metric family at a time.
type promWriter struct {
	w     io.Writer
	label string // `model_name="..."`, escaped
	err   error
}

func (p *promWriter) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

func (p *promWriter) family(name, typ, help string) {
	p.printf("# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
}

func (p *promWriter) sample(name, extraLabels string, v float64) {
	p.printf("%s{%s%s} %s\n", name, extraLabels, p.label, strconv.FormatFloat(v, 'g', -1, 64))
}

func (p *promWriter) single(name, typ, help string, v float64) {
	p.family(name, typ, help)
	p.sample(name, "", v)
}

func (p *promWriter) histogram(name, help string, h histogram) {
	p.family(name, "histogram", help)
	var cum uint64
	for i, b := range h.bounds {
		cum += h.counts[i]
		p.sample(name+"_bucket", `le="`+strconv.FormatFloat(b, 'g', -1, 64)+`",`, float64(cum))
	}
	p.sample(name+"_bucket", `le="+Inf",`, float64(h.count))
	p.sample(name+"_sum", "", h.sum)
	p.sample(name+"_count", "", float64(h.count))
}

// write writes the exposition for one scrape.
func (m *metrics) write(w io.Writer, model string, running, waiting int) error {
	defer m.lock()()
	p := &promWriter{w: w, label: `model_name="` + escapeLabel(model) + `"`}
	p.single("vllm:num_requests_running", "gauge",
		"Number of requests in model execution batches.", float64(running))
	p.single("vllm:num_requests_waiting", "gauge",
		"Number of requests waiting to be processed.", float64(waiting))
	p.single("vllm:kv_cache_usage_perc", "gauge",
		"KV-cache usage. 1 means 100 percent usage.", m.kvUsage)
	p.single("vllm:num_preemptions_total", "counter",
		"Cumulative number of preemption from the engine.", float64(m.preemptions))
	p.single("vllm:prefix_cache_queries_total", "counter",
		"Prefix cache queries, in terms of number of queried tokens.", float64(m.prefixQuery))
	p.single("vllm:prefix_cache_hits_total", "counter",
		"Prefix cache hits, in terms of number of cached tokens.", float64(m.prefixHits))
	p.single("vllm:prompt_tokens_total", "counter",
		"Number of prefill tokens processed.", float64(m.promptTokens))
	p.single("vllm:generation_tokens_total", "counter",
		"Number of generation tokens processed.", float64(m.genTokens))
	p.family("vllm:request_success_total", "counter", "Count of successfully processed requests.")
	for _, r := range slices.Sorted(maps.Keys(m.success)) {
		p.sample("vllm:request_success_total", `finished_reason="`+r+`",`, float64(m.success[r]))
	}
	if m.spec { // vLLM registers them only with a speculative config
		p.single("vllm:spec_decode_num_drafts_total", "counter", "Number of spec decoding drafts.", float64(m.specDrafts))
		p.single("vllm:spec_decode_num_draft_tokens_total", "counter", "Number of draft tokens.", float64(m.specDraftTokens))
		p.single("vllm:spec_decode_num_accepted_tokens_total", "counter", "Number of accepted tokens.", float64(m.specAccepted))
	}
	p.histogram("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", m.ttft)
	p.histogram("vllm:request_queue_time_seconds",
		"Histogram of time spent in WAITING phase for request.", m.queue)
	p.histogram("vllm:request_prefill_time_seconds",
		"Histogram of time spent in PREFILL phase for request.", m.prefill)
	return p.err
}

func (m *metrics) stats() Stats {
	defer m.lock()()
	st := Stats{GeneratedTokens: m.genTokens, PromptTokens: m.promptTokens, Aborted: m.aborts, Preemptions: m.preemptions,
		PrefixQueried: m.prefixQuery, PrefixHits: m.prefixHits}
	for _, n := range m.success {
		st.Served += n
	}
	return st
}

var labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

func escapeLabel(s string) string { return labelEscaper.Replace(s) }
