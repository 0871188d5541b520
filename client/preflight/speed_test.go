package preflight

import (
	"testing"
	"time"

	"github.com/toksweep/toksweep/client"
)

// A busy client can read the pre-flight's stream in one burst: the chunks
// arrive microseconds apart though the server sent them 10 ms apart. When
// the server stamps its sends (the simulator), the time per token is the
// stamps' (the README's `sweep --sim` estimated "a few seconds" for its
// 25 s when the pre-flight was read so).
func TestPreflightSpeedFromTheServersStamps(t *testing.T) {
	t.Parallel()
	const ms = time.Millisecond
	rec := client.Record{Start: 0, FirstToken: 130 * ms}
	for i := range 8 {
		at := 130*ms + time.Duration(i)*100*time.Microsecond // read in a burst
		sent := 100*ms + time.Duration(i)*10*ms
		rec.ChunkAt, rec.SendLag = append(rec.ChunkAt, at), append(rec.SendLag, at-sent)
	}
	if ttft, per := (Result{Rec: rec, Measured: true}).Speed(); ttft != 130*ms || per != 10*ms {
		t.Errorf("stamped: TTFT %v, per token %v; want 130ms, 10ms", ttft, per)
	}
	rec.SendLag = nil // unstamped: the arrivals are all there is
	if _, per := (Result{Rec: rec, Measured: true}).Speed(); per != 100*time.Microsecond {
		t.Errorf("unstamped: per token %v, want 100µs", per)
	}
	if ttft, per := (Result{Rec: rec}).Speed(); ttft != 0 || per != 0 {
		t.Errorf("no pre-flight measured: TTFT %v, per token %v; want 0, 0", ttft, per)
	}
	rec.ChunkAt = rec.ChunkAt[:1] // one chunk: no gap to time
	if ttft, per := (Result{Rec: rec, Measured: true}).Speed(); ttft != 0 || per != 0 {
		t.Errorf("one chunk: TTFT %v, per token %v; want 0, 0", ttft, per)
	}
}
