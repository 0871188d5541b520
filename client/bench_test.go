package client

// The benchmarks' figures, and what they mean against the targets, are in
// bench/results.md (section 1), which bench/run.sh rewrites from a fresh
// run; they are not copied here, where they would go stale.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/toksweep/toksweep/internal/testkit/benchstream"
)

// benchChunks is the number of token chunks in the benchmark stream.
const benchChunks = benchstream.Chunks

// benchStream is the benchmark stream, which bench's floor serves too.
func benchStream(tb testing.TB) []byte { return benchstream.Load(tb, "..") }

// benchEvents returns the data of every event of the benchmark stream.
func benchEvents(tb testing.TB) [][]byte {
	var events [][]byte
	for _, line := range bytes.Split(benchStream(tb), []byte("\n")) {
		if d, ok := bytes.CutPrefix(line, []byte("data: ")); ok && d[0] == '{' {
			events = append(events, d)
		}
	}
	return events
}

// perChunk reports the figures of a benchmark whose op is n chunks.
func perChunk(b *testing.B, n int) {
	chunks := float64(b.N) * float64(n)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/chunks, "ns/chunk")
	b.ReportMetric(chunks/b.Elapsed().Seconds(), "tok/s")
}

func benchParse(b *testing.B, parse func([]byte, *chunk) bool) {
	events := benchEvents(b)
	var c chunk
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		parse(events[i%len(events)], &c)
	}
	perChunk(b, 1)
}

func BenchmarkParseChunk(b *testing.B)    { benchParse(b, parseChunk) }
func BenchmarkParseChunkStd(b *testing.B) { benchParse(b, parseChunkStd) }

func BenchmarkJSONValid(b *testing.B) {
	benchParse(b, func(d []byte, _ *chunk) bool { return json.Valid(d) })
}

// BenchmarkLineScanFloor is the floor: reading the same bytes line by line
// and nothing else.
func BenchmarkLineScanFloor(b *testing.B) {
	stream := benchStream(b)
	rd := bytes.NewReader(stream)
	br := bufio.NewReaderSize(rd, sseBufSize)
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		rd.Reset(stream)
		br.Reset(rd)
		for {
			if _, err := br.ReadSlice('\n'); err != nil {
				break
			}
		}
	}
	perChunk(b, benchChunks)
}

// BenchmarkStreamParse is the client's hot path without HTTP: SSE framing,
// the chunk scanner, and the Record, with the clock read per read.
func BenchmarkStreamParse(b *testing.B) {
	data := benchStream(b)
	rd := bytes.NewReader(data)
	start := time.Now()
	now := func() time.Duration { return time.Since(start) }
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		rd.Reset(data)
		rec := Record{ChunkAt: make([]time.Duration, 0, benchChunks)}
		s := stream{rec: &rec}
		r := newSSEReader(rd, now)
		if err := s.read(r, 0); err != nil || len(rec.ChunkAt) != benchChunks || rec.CompletionTokens != benchChunks {
			b.Fatalf("%v: %d chunks, usage %d", err, len(rec.ChunkAt), rec.CompletionTokens)
		}
		r.free()
	}
	perChunk(b, benchChunks)
}

// BenchmarkDo measures whole requests over loopback HTTP, the stream sent
// at once: the client's cost per chunk, plus a small server's.
func BenchmarkDo(b *testing.B) {
	stream := benchStream(b)
	srv := newServer(b, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.Copy(w, bytes.NewReader(stream))
	})
	c := newClient(b, srv.URL, Config{MaxTokens: benchChunks})
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		if rec := c.Do(context.Background(), Prompt{Text: "x"}); !rec.OK() || len(rec.ChunkAt) != benchChunks {
			b.Fatalf("%s %s: %d chunks", rec.ErrorClass, rec.Error, len(rec.ChunkAt))
		}
	}
	perChunk(b, benchChunks)
}
