package bench

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/toksweep/toksweep/internal/testkit/benchstream"
)

// floorChunks is the chunk count of client's benchmark stream, so that
// ns/chunk compares.
const floorChunks = benchstream.Chunks

// floorStream is the stream client.BenchmarkDo serves.
func floorStream(tb testing.TB) []byte { return benchstream.Load(tb, "..") }

// BenchmarkHTTPLineScanFloor is the floor for client.BenchmarkDo: the same
// stream over the same loopback HTTP, read by net/http and a bare bufio line
// scan that only counts lines. Whatever client.BenchmarkDo costs beyond
// this is the client's own work (SSE framing, validation, timestamps).
func BenchmarkHTTPLineScanFloor(b *testing.B) {
	stream := floorStream(b)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.Copy(w, bytes.NewReader(stream))
	}))
	defer srv.Close()
	hc := &http.Client{Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 4}}
	body := []byte(`{"model":"m","messages":[{"role":"user","content":"x"}],"stream":true}`)
	br := bufio.NewReaderSize(nil, 4096)
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		resp, err := hc.Post(srv.URL+"/v1/chat/completions", "application/json", bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		br.Reset(resp.Body)
		lines := 0
		for {
			line, err := br.ReadSlice('\n')
			if len(line) > 1 {
				lines++
			}
			if err != nil && err != bufio.ErrBufferFull {
				break
			}
		}
		resp.Body.Close()
		if lines != floorChunks+4 {
			b.Fatalf("%d lines, want %d", lines, floorChunks+4)
		}
	}
	chunks := float64(b.N) * floorChunks
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/chunks, "ns/chunk")
	b.ReportMetric(chunks/b.Elapsed().Seconds(), "tok/s")
}
