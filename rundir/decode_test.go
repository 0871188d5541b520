package rundir

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/report"
)

// decodeRecord gives what json.Unmarshal gives, record for record, on
// lines as toksweep writes them (long, short, empty and absent arrays,
// negative and extreme values) and on lines it must leave to
// json.Unmarshal, errors included.
func TestDecodeRecordIsUnmarshal(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	durations := func() []time.Duration { return randomDurations(rng) }
	var lines []string
	for i := range 500 {
		r := client.Record{Concurrency: i, Seq: i, Start: time.Duration(i) * time.Second, ChunkAt: durations(), SendLag: durations(),
			Error: `a "chunk_ns":[1,2] in the text`, FinishReason: "stop"}
		b, err := appendRecord(nil, &r, report.ReadingSpeed)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	lines = append(lines,
		`{"seq":1,"chunk_ns": [1, 2],"send_lag_ns":[3]}`, // spaces: json.Unmarshal's
		`{"seq":1,"chunk_ns":[1,2],"chunk_ns":[3]}`,      // a key twice: the last wins
		`{"seq":1,"chunk_ns":[1.5]}`,                     // not an integer: json's error
		`{"seq":1,"chunk_ns":[01]}`,                      // a leading zero: json's error
		`{"seq":1,"chunk_ns":[1,]}`,                      // a trailing comma: json's error
		`{"seq":1,"chunk_ns":[9223372036854775808]}`,     // past int64: json's error
		`{"seq":1,"chunk_ns":[-9223372036854775808,-0]}`, // the extremes
		`{"seq":1,"chunk_ns":[1,2],"send_lag_ns":["x"]}`, // a string: json's error
		`{"seq":1,"chunk_ns":[1,2]`,                      // cut short: json's error
		`{"seq":1,"chunk_ns":[]}`,                        // empty, not null
	)
	for _, line := range lines {
		var want, got client.Record
		werr := json.Unmarshal([]byte(line), &want)
		gerr := decodeRecord([]byte(line), &got)
		if (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) {
			t.Fatalf("%.80s: error %v, json.Unmarshal's %v", line, gerr, werr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%.80s: decoded %+v, json.Unmarshal %+v", line, got, want)
		}
		if !strings.Contains(line, "chunk_ns") {
			t.Fatalf("%.80s: no chunk_ns", line)
		}
	}
}

// The fast path is taken on toksweep's own lines: a long stream's line
// decodes in well under json.Unmarshal's allocations.
func TestDecodeRecordFastPath(t *testing.T) {
	r := client.Record{ChunkAt: make([]time.Duration, 2000), SendLag: make([]time.Duration, 2000)}
	for i := range r.ChunkAt {
		r.ChunkAt[i], r.SendLag[i] = time.Duration(i)*12_345_678, time.Duration(i%997)*1000
	}
	line, _ := appendRecord(nil, &r, report.ReadingSpeed)
	if _, _, ok := cutArray(line, chunkKey); !ok {
		t.Fatal("chunk_ns of toksweep's own line not parsed")
	}
	var got client.Record
	fast := testing.AllocsPerRun(20, func() { got = client.Record{}; _ = decodeRecord(line, &got) })
	slow := testing.AllocsPerRun(20, func() { got = client.Record{}; _ = json.Unmarshal(line, &got) })
	if !reflect.DeepEqual(got.ChunkAt, r.ChunkAt) || fast >= slow {
		t.Errorf("allocations %v (json.Unmarshal %v), chunks equal %v", fast, slow, reflect.DeepEqual(got.ChunkAt, r.ChunkAt))
	}
}

// randomDurations is a chunk_ns or send_lag_ns array for the encoding
// tests: nil, empty, or up to 300 values, some of them extreme.
func randomDurations(rng *rand.Rand) []time.Duration {
	edge := []time.Duration{0, -1, 1, math.MaxInt64, math.MinInt64, 10, -100}
	switch rng.IntN(5) {
	case 0:
		return nil
	case 1:
		return []time.Duration{}
	}
	vs := make([]time.Duration, rng.IntN(300))
	for i := range vs {
		vs[i] = time.Duration(rng.Int64N(1e10)) - 1e5
		if rng.IntN(50) == 0 {
			vs[i] = edge[rng.IntN(len(edge))]
		}
	}
	return vs
}
