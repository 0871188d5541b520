package rundir

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/client"
)

// fullRecord sets every field of client.Record to a non-zero value, so a
// round trip that drops or renames one shows.
func fullRecord() client.Record {
	r := stream(3*time.Second, 140*msec, 12*msec, 4)
	r.Concurrency, r.Repeat, r.Worker, r.Seq, r.Warmup, r.PromptID = 8, 2, 5, 17, true, 3
	r.Header = r.Start + 90*msec
	r.FirstContent = r.Start + r.ChunkAt[2]
	r.End = r.LastToken + 1234567 // odd nanoseconds must survive
	r.ReasoningChunks = 2
	r.PromptTokens, r.CompletionTokens, r.ReasoningTokens = 28, 5, 2
	r.Status, r.ErrorClass, r.Error = 200, client.Truncated, "stream ended without [DONE]"
	r.MalformedChunks = 1
	r.SendLag = []time.Duration{1, 2, 3, 4}
	return r
}

func TestRecordJSONRoundTrip(t *testing.T) {
	for _, want := range []client.Record{fullRecord(), {}, failed(client.Connect, 1, 5, 6)} {
		b, err := json.Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		var got client.Record
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("round trip changed the record:\n got %+v\nwant %+v", got, want)
		}
	}
}

func TestWriteReadRecords(t *testing.T) {
	recs := []client.Record{fullRecord(), stream(0, msec, msec, 3), failed(client.HTTP429, 2, 0, msec)}
	var b bytes.Buffer
	if err := writeRecords(&b, recs); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "\n"); n != len(recs) {
		t.Fatalf("%d lines, want %d", n, len(recs))
	}
	got, err := ReadRecords(&b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, recs) {
		t.Errorf("ReadRecords(writeRecords(recs)) differs:\n got %+v\nwant %+v", got, recs)
	}
}

func TestReadRecords(t *testing.T) {
	line := `{"worker":1,"start_ns":5,"chunk_ns":[1,2]}`
	tests := []struct {
		name    string
		in      string
		n       int
		wantErr string
	}{
		{"empty", "", 0, ""},
		{"no final newline", line + "\n" + line, 2, ""},
		{"blank lines skipped", "\n" + line + "\n\n" + line + "\n", 2, ""},
		{"bad line is named", line + "\n{\"worker\": \n" + line + "\n", 1, "line 2: "},
		{"cut-off last line", line + "\n" + line[:20], 1, "line 2: "},
		{"wrong type", `{"start_ns":"soon"}`, 0, "line 1: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadRecords(strings.NewReader(tt.in))
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.wantErr)):
				t.Fatalf("error = %v, want prefix %q", err, tt.wantErr)
			}
			if len(got) != tt.n {
				t.Errorf("%d records, want %d", len(got), tt.n)
			}
		})
	}
}

// TestRecordLinesCarryTheirFigures: each requests.jsonl line has the
// request's own ttft_ms, decode_tps and e2e_tps, null when undefined.
func TestRecordLinesCarryTheirFigures(t *testing.T) {
	ok := stream(0, 200*msec, 20*msec, 51)       // TTFT 200 ms, 50 gaps of 20 ms, ends at 1.2 s
	bad := failed(client.HTTP5xx, 0, 0, 10*msec) // no tokens at all
	var buf bytes.Buffer
	if err := writeRecords(&buf, []client.Record{ok, bad}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	want := []map[string]any{
		{"ttft_ms": 200.0, "decode_tps": 50.0, "e2e_tps": 42.5},
		{"ttft_ms": nil, "decode_tps": nil, "e2e_tps": 0.0},
	}
	for i, line := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		for k, v := range want[i] {
			if m[k] != v {
				t.Errorf("line %d: %s = %v, want %v", i+1, k, m[k], v)
			}
		}
	}
	back, err := ReadRecords(&buf)
	if err != nil || len(back) != 2 || back[0].CompletionTokens != 51 {
		t.Errorf("read back %d records (%v): the figures must not disturb the record", len(back), err)
	}
}
