package report

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/toksweep/toksweep/client"
)

func TestConsoleDetails(t *testing.T) {
	rep := Summarize(twoWorkerLoop(), Settings{})
	rep.Repeat = 1
	empty := Summarize(level(2), Settings{})
	tests := []struct {
		name  string
		stats []LevelStats
		want  []string // substrings of the output, runs of spaces collapsed
		not   []string
	}{
		{"repeat column and footnote label count runs from 1", []LevelStats{Summarize(twoWorkerLoop(), Settings{}), withStarved(rep)},
			[]string{"C rep ok fail", "2 1 20.4", "2 2 ! 20.4", "! C=2 rep 2 may have been client-limited: in-flight"}, []string{"rep 1:", "2 0 "}},
		{"no repeat column without repeats", []LevelStats{Summarize(twoWorkerLoop(), Settings{})},
			[]string{"C ok fail p50"}, []string{"rep", "!", "chunk count", "warning:"}},
		{"undefined figures print as -", []LevelStats{empty},
			[]string{"2 0 0 - - - - - - - - - - -", "2 - - - - - - completed"}, []string{"NaN"}},
		{"no levels: titles and heads only", nil,
			[]string{tableTitles[SingleTable], "Aggregate (what the server delivers; steady-state window, all C in flight)"}, []string{tableTitles[ServerTable]}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := consoleOf(t, tt.stats...)
			var squeezed []string
			for _, line := range strings.Split(out, "\n") {
				squeezed = append(squeezed, strings.Join(strings.Fields(line), " "))
			}
			for _, w := range tt.want {
				if !strings.Contains(strings.Join(squeezed, "\n"), w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(out, n) {
					t.Errorf("output has %q:\n%s", n, out)
				}
			}
			for _, line := range strings.Split(out, "\n") {
				if strings.TrimRight(line, " ") != line {
					t.Errorf("trailing space in %q", line)
				}
			}
		})
	}
}

func withStarved(s LevelStats) LevelStats {
	s.ClientLimited, s.ClientLimitedReason = true, "in-flight 1.00 of C=2"
	return s
}

func TestErrorCountsJSON(t *testing.T) {
	e := newErrorCounts()
	e.add(client.Timeout)
	e.add(client.Timeout)
	e.add(client.HTTP4xx)
	e.add("made_up") // not a known class: not counted here
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"http_4xx":1,"http_429":0,"http_5xx":0,"connect":0,"timeout":2,"stream_error":0,"truncated":0,"malformed":0,"overrun":0,"canceled":0,"empty":0}`
	if string(b) != want {
		t.Errorf("MarshalJSON = %s\nwant %s", b, want)
	}
	var back ErrorCounts
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, e) {
		t.Errorf("round trip = %v, want %v", back, e)
	}
	if got := e.String(); got != "http_4xx=1 timeout=2" {
		t.Errorf("String = %q", got)
	}
	if err := json.Unmarshal([]byte(`{"timeout":1,"zz":2}`), &back); err != nil || back.Count("zz") != 2 || back.Count(client.Timeout) != 1 {
		t.Errorf("unknown classes: %v %v", back, err)
	}
}

// With an SLO the single-stream table shows e2e p10 (what --slo-e2e-tps
// checks) beside e2e p50; TTFC sits beside TTFT only when a request reasoned.
func TestConsoleSLOAndReasoningFigures(t *testing.T) {
	base := Summarize(twoWorkerLoop(), Settings{})
	base.E2ETPSP10 = 7.25
	plain := consoleOf(t, base)
	judged := base
	judged.SLO = &SLOResult{Pass: true}
	withSLO := consoleOf(t, judged)
	reasoned := base
	reasoned.ReasoningRequests, reasoned.TTFCP50 = 3, 432*msec
	withReasoning := consoleOf(t, reasoned)
	cases := []struct {
		name, out string
		want, not []string
	}{
		{"no SLO, no reasoning", plain, nil, []string{"7.2", "TTFC"}},
		{"SLO", withSLO, []string{"p50 p10 mean p50", "10.0 7.2 10.0 100.0"}, []string{"TTFC"}},
		{"reasoning", withReasoning, []string{"p50 p95 p99 TTFC p50 p50", "100.0 100.0 100.0 432.0 10.0"}, []string{"7.2"}},
	}
	for _, tc := range cases {
		squeezed := strings.Join(strings.Fields(tc.out), " ")
		for _, w := range tc.want {
			if !strings.Contains(squeezed, w) {
				t.Errorf("%s: console lacks %q:\n%s", tc.name, w, tc.out)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(tc.out, n) {
				t.Errorf("%s: console has %q:\n%s", tc.name, n, tc.out)
			}
		}
	}
}
