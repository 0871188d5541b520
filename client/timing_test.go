package client

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// Tolerances. A chunk's measured arrival is never before the server wrote
// it (exact), and at most measureTolerance after, both on the client's
// clock: this is the accuracy of the measurement, typically tens of
// microseconds even under -race. Against the schedule (D, G) the lower
// bound is exact too; the upper one, scheduleTolerance, is checked only
// when the test server kept to its schedule within serverSlack, because on
// a loaded machine its timers fire late (by 100 ms under -race and two CPU
// hogs on two cores), which is not the client's error.
const (
	measureTolerance  = 2 * time.Millisecond
	scheduleTolerance = 5 * time.Millisecond
	serverSlack       = 3 * time.Millisecond
)

// TestPacedFixtures replays the hand-written fixtures with a known first
// delay D and gap G, and checks the measurements and their timing against
// both the schedule and the instants the server really wrote each event.
func TestPacedFixtures(t *testing.T) {
	p := pace{first: 30 * time.Millisecond, gap: 10 * time.Millisecond}
	tests := []struct {
		file         string
		tokenEvents  []int // indexes of the events that carry tokens
		firstContent int   // index of the first event with content
		reasoning    int
		usage        [3]int // prompt, completion, reasoning; zero: no usage
		finish       string
		class        ErrorClass
		errPart      string
		malformed    int
	}{
		{"reasoning-content.sse", []int{1, 2, 3, 4, 5, 6}, 4, 3, [3]int{12, 9, 4}, "stop", OK, "", 0},
		{"reasoning-field.sse", []int{1, 2, 3, 4, 5, 6}, 4, 3, [3]int{12, 9, 4}, "stop", OK, "", 0},
		{"multi-token.sse", []int{0, 2, 3, 4, 5}, 0, 0, [3]int{5, 10, 0}, "length", OK, "", 0},
		{"no-usage.sse", []int{0, 1, 2, 3}, 0, 0, [3]int{}, "stop", OK, "", 0},
		{"empty-finish.sse", []int{0, 1, 2}, 0, 0, [3]int{4, 3, 0}, "stop", OK, "", 0},
		{"error-midstream.sse", []int{0, 1, 2}, 0, 0, [3]int{}, "", StreamError,
			"error event in stream: CUDA out of memory (code 500)", 0},
		{"malformed-midstream.sse", []int{0, 1, 3, 4}, 0, 0, [3]int{4, 5, 0}, "stop", Malformed,
			`malformed response: 1 malformed data events; the first: data event is not a JSON object: "{\"choices\"`, 1},
		{"truncated.sse", []int{0, 1, 2}, 0, 0, [3]int{}, "", Truncated,
			"incomplete stream: the response ended without finish_reason or [DONE]", 0},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			log := &sendLog{}
			srv := newServer(t, replay(splitEvents(readFile(t, sseDir, tt.file)), p, log))
			c := newClient(t, srv.URL, Config{MaxTokens: 16})
			log.setClock(c.Now)
			rec := c.Do(context.Background(), Prompt{Text: "2+2?"})

			if rec.ErrorClass != tt.class || !strings.HasPrefix(rec.Error, tt.errPart) {
				t.Errorf("class %q error %q, want %q starting %q", rec.ErrorClass, rec.Error, tt.class, tt.errPart)
			}
			if rec.MalformedChunks != tt.malformed || rec.ReasoningChunks != tt.reasoning || rec.FinishReason != tt.finish {
				t.Errorf("malformed %d reasoning %d finish %q, want %d %d %q", rec.MalformedChunks,
					rec.ReasoningChunks, rec.FinishReason, tt.malformed, tt.reasoning, tt.finish)
			}
			got := [3]int{rec.PromptTokens, rec.CompletionTokens, rec.ReasoningTokens}
			if got != tt.usage || rec.HasUsage != (tt.usage != [3]int{}) {
				t.Errorf("usage %v %v, want %v", rec.HasUsage, got, tt.usage)
			}
			if rec.SendLag != nil {
				t.Errorf("SendLag %v without x_sent_unix_ns", rec.SendLag)
			}
			sent := log.sent()
			var sched, wrote []time.Duration
			for _, e := range tt.tokenEvents {
				sched = append(sched, p.first+time.Duration(e)*p.gap)
				wrote = append(wrote, sent[e]-rec.Start)
			}
			checkTiming(t, rec.ChunkAt, sched, wrote)
			if i := slices.Index(tt.tokenEvents, tt.firstContent); rec.FirstContent != rec.Start+rec.ChunkAt[i] {
				t.Errorf("first content at %v, want chunk %d at %v", rec.FirstContent-rec.Start, i, rec.ChunkAt[i])
			}
		})
	}
}

// checkTiming compares measured arrivals with the schedule and with the
// instants the server wrote each chunk, all offsets from the request start.
func checkTiming(t *testing.T, got, sched, wrote []time.Duration) {
	t.Helper()
	if len(got) != len(sched) {
		t.Fatalf("%d token chunks at %v, want %d", len(got), got, len(sched))
	}
	var worst, worstSched time.Duration
	for i := range got {
		late, lateSched := got[i]-wrote[i], got[i]-sched[i]
		onTime := wrote[i]-sched[i] <= serverSlack
		worst, worstSched = max(worst, late), max(worstSched, lateSched)
		if late < 0 || late > measureTolerance || lateSched < 0 || onTime && lateSched > scheduleTolerance {
			t.Errorf("chunk %d measured at %v; scheduled at %v, written at %v", i, got[i], sched[i], wrote[i])
		}
		if i == 0 {
			continue
		}
		gap, wroteGap, schedGap := got[i]-got[i-1], wrote[i]-wrote[i-1], sched[i]-sched[i-1]
		if d := gap - wroteGap; d < -measureTolerance || d > measureTolerance {
			t.Errorf("gap before chunk %d is %v, written %v apart", i, gap, wroteGap)
		}
		if d := gap - schedGap; onTime && wrote[i-1]-sched[i-1] <= serverSlack && (d < -scheduleTolerance || d > scheduleTolerance) {
			t.Errorf("gap before chunk %d is %v, scheduled %v apart", i, gap, schedGap)
		}
	}
	t.Logf("worst measurement: %v after the write, %v after the schedule", worst, worstSched)
}

// TestSendLag checks the simulator's extension: a server that stamps each
// event with its send time gets SendLag, one per token chunk, small and
// never much below zero (wall and monotonic clocks may differ by a hair).
func TestSendLag(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range 5 {
			time.Sleep(5 * time.Millisecond)
			fmt.Fprintf(w, "data: {\"x_sent_unix_ns\":%d,\"choices\":[{\"delta\":{\"content\":\"t%d\"}}]}\n\n",
				time.Now().UnixNano(), i)
			w.(http.Flusher).Flush()
		}
		fmt.Fprintf(w, "data: {\"x_sent_unix_ns\":%d,\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
			time.Now().UnixNano())
		fmt.Fprint(w, "data: [DONE]\n\n")
	})
	c := newClient(t, srv.URL, Config{})
	rec := c.Do(context.Background(), Prompt{Text: "hi"})
	if !rec.OK() || len(rec.ChunkAt) != 5 || len(rec.SendLag) != 5 {
		t.Fatalf("class %q, %d chunks, SendLag %v", rec.ErrorClass, len(rec.ChunkAt), rec.SendLag)
	}
	if slices.Min(rec.SendLag) < -time.Millisecond || slices.Max(rec.SendLag) > measureTolerance {
		t.Errorf("SendLag %v, want each in [-1ms, %v]", rec.SendLag, measureTolerance)
	}
}
