package report

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/sweep"
)

// twoWorkerLoop is a hand-made closed loop of two workers, one warm-up and
// three 1 s requests each. A request's 10 chunks arrive 100 ms apart from
// 100 ms after its start; it ends with its last chunk.
//
//	worker 0: warm-up [0, 1]     then [1, 2] [2, 3] [3, 4]
//	worker 1: warm-up [0.5, 1.5] then [1.5, 2.5] [2.5, 3.5] [3.5, 4.5]
//
// Steady-state window: [max(1, 1.5), min(4, 4.5)] = [1.5 s, 4.0 s], 2.5 s.
func twoWorkerLoop() sweep.Level {
	return level(2, closedLoop(2, 3, 500*msec, 100*msec, 100*msec, 10, 20)...)
}

func TestSteadyStateWindow(t *testing.T) {
	s := Summarize(twoWorkerLoop(), Settings{})
	if s.WindowStart != 1500*msec || s.WindowEnd != 4*time.Second || s.WindowFallback {
		t.Fatalf("window = [%v, %v] fallback=%v, want [1.5s, 4s] false", s.WindowStart, s.WindowEnd, s.WindowFallback)
	}
	want := map[string]string{
		"window_s": "2.500",
		// Chunks arriving in [1.5, 4.0] (closed): worker 0: 6 + 10 + 10,
		// worker 1: 10 + 10 + 5 (3.6 … 4.0) = 51 tokens.
		"aggregate_output_tps": "20.400",
		// Prompts of requests whose first token is in the window: all but
		// worker 0's first (first token at 1.1 s): 5 × 20 tokens.
		"aggregate_total_tps": "60.400",
		// Each request by its share of chunks in the window, as the
		// tokens: 51 of 10-chunk requests = 5.1 requests / 2.5 s. (The
		// true rate is 2.0: both closed edges catch a chunk.)
		"requests_per_s": "2.0400",
		// Overlaps: 0.5 + 1 + 1 and 1 + 1 + 0.5 = 5 request-seconds.
		"inflight_mean":  "2.000",
		"client_limited": "false",
	}
	got := figures(s)
	for col, w := range want {
		if got[col] != w {
			t.Errorf("%s = %q, want %q", col, got[col], w)
		}
	}
}

func TestWindowFallback(t *testing.T) {
	// Worker 1 starts only after worker 0 has finished: there is no span
	// with both in flight, so the window is the whole level, [0, 3 s].
	l := level(2,
		stream(0, 100*msec, 100*msec, 10),
		with(stream(2*time.Second, 100*msec, 100*msec, 10), func(r *client.Record) { r.Worker = 1 }),
	)
	s := Summarize(l, Settings{})
	if !s.WindowFallback || s.WindowStart != 0 || s.WindowEnd != 3*time.Second {
		t.Fatalf("window = [%v, %v] fallback=%v, want [0, 3s] true", s.WindowStart, s.WindowEnd, s.WindowFallback)
	}
	got := figures(s)
	for col, w := range map[string]string{
		"window_s": "3.000", "window_fallback": "true",
		"aggregate_output_tps": "6.667", // 20 tokens / 3 s
		"inflight_mean":        "0.667", // 2 request-seconds / 3 s
	} {
		if got[col] != w {
			t.Errorf("%s = %q, want %q", col, got[col], w)
		}
	}
}

// TestClientLimited checks the exact rule of docs/metrics.md on hand-made
// levels: a symptom flags a level only with its corroboration.
func TestClientLimited(t *testing.T) {
	healthy := sweep.Health{CPUSeconds: 0.5, WallSeconds: 1, GOMAXPROCS: 4, IssueLagMax: time.Millisecond, TimerLateP99: time.Millisecond}
	// Three workers busy over [0, 1 s] at C=4: in-flight 3.0. ITL 100 ms.
	starved := level(4,
		stream(0, 100*msec, 100*msec, 10),
		with(stream(0, 100*msec, 100*msec, 10), func(r *client.Record) { r.Worker = 1 }),
		with(stream(0, 100*msec, 100*msec, 10), func(r *client.Record) { r.Worker = 2 }),
	)
	// One worker whose requests all fail 1 ms after they start, 0.2 ms
	// apart: in-flight 5 ms over the 5.8 ms window, 0.86 of C=1.
	var instant []client.Record
	for i := range 5 {
		at := time.Duration(i) * 1200 * time.Microsecond
		instant = append(instant, client.Record{Start: at, End: at + msec, Status: 500, ErrorClass: client.HTTP5xx})
	}
	failedAtOnce := level(1, instant...)
	fast := level(1, stream(0, 50*msec, 10*msec, 20))      // ITL p50 10 ms
	oneToken := level(1, stream(0, 100*msec, 100*msec, 1)) // no ITL; TTFT p50 100 ms
	bunched := level(1, stream(0, 50*msec, 0, 20))         // 20 chunks in one read: ITL p50 0
	withHealth := func(l sweep.Level, h sweep.Health) sweep.Level {
		l.Health = h
		return l
	}
	// stamped gives every chunk of l's records a client delay of lag.
	stamped := func(l sweep.Level, lag time.Duration) sweep.Level {
		for i := range l.Records {
			r := &l.Records[i]
			r.SendLag = make([]time.Duration, len(r.ChunkAt))
			for j := range r.SendLag {
				r.SendLag[j] = lag
			}
		}
		return l
	}
	lag := func(d time.Duration) sweep.Health { return sweep.Health{IssueLagMax: d} }
	late := func(d time.Duration) sweep.Health { return sweep.Health{TimerLateP99: d} }
	cpu := func(cpu float64, procs int, d time.Duration) sweep.Health {
		return sweep.Health{CPUSeconds: cpu, WallSeconds: 1, GOMAXPROCS: procs, TimerLateP99: d}
	}
	tests := []struct {
		name   string
		l      sweep.Level
		want   bool
		reason string
	}{
		{"healthy", withHealth(twoWorkerLoop(), healthy), false, ""},
		{"health not measured", twoWorkerLoop(), false, ""},
		// The closed loop: a shortfall needs the lag, and the lag the shortfall.
		{"in-flight 3.0 of C=4, no issue lag", withHealth(starved, healthy), false, ""},
		{"in-flight 3.0 of C=4 with issue lag", withHealth(starved, lag(25*msec)), true, "in-flight 3.00 of C=4 with issue lag max 25.0 ms"},
		{"in-flight 3.0 of C=4, issue lag at the limit", withHealth(starved, lag(IssueLagLimit)), false, ""},
		{"issue lag with every worker in flight", withHealth(twoWorkerLoop(), lag(25*msec)), false, ""},
		{"every request failed at once", withHealth(failedAtOnce, lag(25*msec)), false, ""},
		// Timer lateness: above the floor and above 25% of the ITL p50.
		{"late 24% of ITL", withHealth(twoWorkerLoop(), late(24*msec)), false, ""},
		{"late 30% of ITL", withHealth(twoWorkerLoop(), late(30*msec)), true, "timer late p99 30.0 ms (30% of ITL p50 100.0 ms)"},
		{"late 49% of ITL, under the floor", withHealth(fast, late(4900*time.Microsecond)), false, ""},
		{"late 60% of ITL", withHealth(fast, late(6*msec)), true, "timer late p99 6.0 ms (60% of ITL p50 10.0 ms)"},
		{"late 3.2× the ITL", withHealth(fast, late(32*msec)), true, "timer late p99 32.0 ms (3.2× the ITL p50 10.0 ms)"},
		{"late, no ITL: against TTFT", withHealth(oneToken, late(30*msec)), true, "timer late p99 30.0 ms (30% of TTFT p50 100.0 ms)"},
		{"late, no successful request", withHealth(failedAtOnce, late(30*msec)), false, ""},
		{"late, ITL p50 0 (bunched chunks)", withHealth(bunched, late(6*msec)), true, "timer late p99 6.0 ms (ITL p50 0.0 ms)"},
		{"bunched, under the floor", withHealth(bunched, late(4*msec)), false, ""},
		// The server's send stamps measure the client's delay: they win
		// over the ticker, both ways.
		{"ticker late, stamps say on time", withHealth(stamped(twoWorkerLoop(), msec), late(30*msec)), false, ""},
		{"ticker on time, stamps say late", withHealth(stamped(twoWorkerLoop(), 30*msec), late(msec)), true,
			"client read delay p99 30.0 ms (30% of ITL p50 100.0 ms)"},
		{"CPU 95%, stamps 6 ms late", withHealth(stamped(twoWorkerLoop(), 6*msec), cpu(3.8, 4, msec)), true,
			"client CPU 95% of 4 procs with client read delay p99 6.0 ms"},
		// CPU: saturated and late (above the floor).
		{"CPU 95%, on time", withHealth(twoWorkerLoop(), cpu(3.8, 4, 4*msec)), false, ""},
		{"CPU 95%, late 6%", withHealth(twoWorkerLoop(), cpu(3.8, 4, 6*msec)), true, "client CPU 95% of 4 procs with timer late p99 6.0 ms"},
		{"CPU exactly 90% fires", withHealth(twoWorkerLoop(), cpu(1.8, 2, 6*msec)), true, "client CPU 90% of 2 procs with timer late p99 6.0 ms"},
		{"CPU 89%", withHealth(twoWorkerLoop(), cpu(1.78, 2, 6*msec)), false, ""},
		{"CPU 95%, late 30%", withHealth(twoWorkerLoop(), cpu(3.8, 4, 30*msec)), true,
			"timer late p99 30.0 ms (30% of ITL p50 100.0 ms); client CPU 95% of 4 procs"},
		{"several reasons", withHealth(starved, sweep.Health{IssueLagMax: 25 * msec, TimerLateP99: 30 * msec}),
			true, "in-flight 3.00 of C=4 with issue lag max 25.0 ms; timer late p99 30.0 ms (30% of ITL p50 100.0 ms)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Summarize(tt.l, Settings{})
			if s.ClientLimited != tt.want || s.ClientLimitedReason != tt.reason {
				t.Errorf("ClientLimited = %v %q, want %v %q (in-flight %.2f)", s.ClientLimited, s.ClientLimitedReason, tt.want, tt.reason, s.InflightMean)
			}
			note := "! C=" + strconv.Itoa(s.Concurrency) + " may have been client-limited: " + tt.reason
			if got := strings.Contains(consoleOf(t, s), note); got != tt.want {
				t.Errorf("console has footnote %q: %v, want %v", note, got, tt.want)
			}
		})
	}
}

func consoleOf(t *testing.T, stats ...LevelStats) string {
	t.Helper()
	var b strings.Builder
	if err := WriteConsole(&b, stats); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestWindowOfCanceledLevel: Ctrl-C cuts every worker's last request short.
// Those streams are not whole, so the window must end where the first
// worker's last whole request did: two workers at 10 tok/s each deliver 20
// tok/s, not less.
func TestWindowOfCanceledLevel(t *testing.T) {
	recs := closedLoop(2, 3, 0, 100*msec, 100*msec, 30, 5) // measured [3,6] [6,9] [9,12] s on both
	for w := range 2 {
		cut := stream(12*time.Second, 100*msec, 100*msec, 15) // 1.5 s of tokens, then Ctrl-C
		cut.Worker, cut.ErrorClass, cut.HasUsage, cut.CompletionTokens = w, client.Canceled, false, 0
		recs = append(recs, cut)
	}
	l := level(2, recs...)
	l.EndReason = sweep.Canceled
	s := Summarize(l, Settings{})
	if s.WindowStart != 3*time.Second || s.WindowEnd != 12*time.Second || s.WindowFallback {
		t.Fatalf("window = [%v, %v] fallback=%v, want [3s, 12s] false", s.WindowStart, s.WindowEnd, s.WindowFallback)
	}
	if got := figures(s)["aggregate_output_tps"]; got != "20.000" {
		t.Errorf("aggregate_output_tps = %s, want 20.000 (2 streams × 10 tok/s)", got)
	}
}

// TestWindowNeedsEveryWorker: when one fast worker took every measured
// ticket (the others were still in warm-up), there is no span with all C
// workers in flight: the window must fall back, not pretend C=4 was held.
func TestWindowNeedsEveryWorker(t *testing.T) {
	recs := closedLoop(1, 4, 0, 100*msec, 100*msec, 10, 5)
	for i := range recs {
		recs[i].Worker = 3
	}
	for w := range 3 {
		warm := stream(0, 100*msec, 100*msec, 40)
		warm.Worker, warm.Warmup = w, true
		recs = append(recs, warm)
	}
	s := Summarize(level(4, recs...), Settings{})
	if !s.WindowFallback {
		t.Fatalf("window [%v, %v] without fallback, though only 1 of 4 workers had measured requests", s.WindowStart, s.WindowEnd)
	}
	if !strings.Contains(s.ClientLimitedReason, "in-flight") {
		t.Logf("client_limited_reason %q", s.ClientLimitedReason)
	}
}
