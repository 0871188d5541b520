package rundir

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/report"
)

// writeRecords writes recs as requests.jsonl's lines (appendRecord), in
// order, with one Write call: the tests' way to make a level file.
func writeRecords(w io.Writer, recs []client.Record) error {
	var b []byte
	for i := range recs {
		var err error
		if b, err = appendRecord(b, &recs[i], report.ReadingSpeed); err != nil {
			return fmt.Errorf("record %d: %w", i, err)
		}
	}
	_, err := w.Write(b)
	return err
}

// appendRecordStd is what appendRecord must write: json.Marshal of the
// whole line.
func appendRecordStd(b []byte, r *client.Record, speed float64) ([]byte, error) {
	line, err := json.Marshal(newRecordLine(r, r, speed))
	if err != nil {
		return nil, err
	}
	return append(append(b, line...), '\n'), nil
}

// appendRecord writes json.Marshal's bytes: long, short, empty, nil and
// absent arrays, extreme values, and text fields that hold the keys it
// splices at.
func TestAppendRecordIsMarshal(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	durations := func() []time.Duration { return randomDurations(rng) }
	texts := []string{"", "stop", `"chunk_ns":null`, `,"ttft_ms":1`, `x","chunk_ns":null,"ttft_ms":`, `\"<&>` + "\u2028\xff"}
	recs := []client.Record{fullRecord(), {}, failed(client.Connect, 1, 5, 6)}
	for i := range 500 {
		r := stream(time.Duration(i)*time.Second, 140*msec, 12*msec, rng.IntN(40))
		if i%2 == 0 {
			r.ChunkAt = durations()
		}
		r.SendLag = durations()
		r.Error, r.FinishReason = texts[rng.IntN(len(texts))], texts[rng.IntN(len(texts))]
		r.Rate, r.MalformedChunks, r.Seq = float64(i)/7, rng.IntN(2), i
		recs = append(recs, r)
	}
	for i := range recs {
		for _, speed := range []float64{report.ReadingSpeed, 0, 1e6} {
			got, err := appendRecord([]byte("prefix"), &recs[i], speed)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := appendRecordStd([]byte("prefix"), &recs[i], speed)
			if string(got) != string(want) {
				t.Fatalf("record %d at %g tok/s:\n got %s\nwant %s", i, speed, got, want)
			}
		}
	}
}

// benchRecord is a finished 200-token request with send stamps, as the
// simulator's (bench/scale.sh cost).
func benchRecord() client.Record {
	r := stream(3*time.Second, 40*msec, 10*msec, 200)
	r.SendLag = make([]time.Duration, len(r.ChunkAt))
	for i := range r.SendLag {
		r.SendLag[i] = time.Duration(150_000 + 37*i)
	}
	r.PromptTokens, r.CompletionTokens, r.HasUsage, r.Status, r.FinishReason = 28, 200, true, 200, "length"
	return r
}

func benchAppend(b *testing.B, f func([]byte, *client.Record, float64) ([]byte, error)) {
	r := benchRecord()
	var line []byte
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if line, err = f(line[:0], &r, report.ReadingSpeed); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(r.ChunkAt)), "ns/token")
}

// The encoding of one record, as the level file does it (reused buffer).
func BenchmarkAppendRecord(b *testing.B)    { benchAppend(b, appendRecord) }
func BenchmarkAppendRecordStd(b *testing.B) { benchAppend(b, appendRecordStd) }
