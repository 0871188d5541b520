package trace

import (
	"math"
	"os"
	"strings"
	"testing"
	"time"
)

func read(t *testing.T, path string, o Options) *Trace {
	t.Helper()
	tr, err := ReadFile(path, o)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// at is a Request's instant and lengths, for comparing with a table.
type at struct {
	line       int
	at         time.Duration
	in, out    int
	id, parent int64
}

func check(t *testing.T, tr *Trace, want []at) {
	t.Helper()
	if len(tr.Requests) != len(want) {
		t.Fatalf("%d requests, want %d: %+v", len(tr.Requests), len(want), tr.Requests)
	}
	for i, w := range want {
		r := tr.Requests[i]
		got := at{r.Line, r.At, r.Input, r.Output, r.ID, r.Parent}
		if got != w {
			t.Errorf("request %d: %+v, want %+v", i, got, w)
		}
	}
}

func TestReadFormats(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	cases := []struct {
		file    string
		format  Format
		block   int
		want    []at
		skipped []Skip
	}{
		{"mooncake.jsonl", Mooncake, 512, []at{{1, 0, 1100, 20, 0, -1}, {2, 250 * ms, 600, 10, 1, -1}, {5, 900 * ms, 1100, 30, 2, -1}, {6, 3000 * ms, 512, 5, 3, -1}},
			[]Skip{{4, "output length 0"}}},
		{"bailian.jsonl", Bailian, 16, []at{{1, 0, 40, 8, 10, -1}, {2, 500 * ms, 20, 4, 11, -1}, {3, 1750 * ms, 70, 6, 12, 10}, {4, 4000 * ms, 90, 3, 13, 12}}, nil},
		{"azure.csv", Azure, 0, []at{{2, 0, 374, 44, 0, -1}, {3, 250 * ms, 396, 109, 1, -1}, {4, 1500 * ms, 879, 1, 2, -1}, {5, 4000 * ms, 91, 275, 3, -1}}, nil},
		{"burstgpt.csv", BurstGPT, 0, []at{{2, 0, 472, 18, 0, -1}, {4, 1000 * ms, 210, 307, 1, -1}, {5, 3250 * ms, 95, 12, 2, -1}},
			[]Skip{{3, "a failed request (Response tokens 0)"}}},
	}
	for _, c := range cases {
		t.Run(string(c.format), func(t *testing.T) {
			t.Parallel()
			tr := read(t, "testdata/"+c.file, Options{})
			if tr.Format != c.format || tr.BlockSize != c.block {
				t.Errorf("detected %s, block %d; want %s, %d", tr.Format, tr.BlockSize, c.format, c.block)
			}
			check(t, tr, c.want)
			if len(tr.Skipped) != len(c.skipped) || len(c.skipped) > 0 && tr.Skipped[0] != c.skipped[0] {
				t.Errorf("skipped %+v, want %+v", tr.Skipped, c.skipped)
			}
			forced := read(t, "testdata/"+c.file, Options{Format: c.format, BlockSize: 8})
			if forced.Format != c.format || forced.BlockSize != 8 {
				t.Errorf("forced: %s, block %d", forced.Format, forced.BlockSize)
			}
		})
	}
}

func TestReadHashes(t *testing.T) {
	t.Parallel()
	tr := read(t, "testdata/mooncake.jsonl", Options{})
	if h := tr.Requests[2].Hashes; len(h) != 3 || h[0] != 0 || h[1] != 1 || h[2] != 4 {
		t.Errorf("hash ids of the third request %v, want [0 1 4]", h)
	}
}

// A forced format that is not the file's is an error naming the line.
func TestForcedWrongFormat(t *testing.T) {
	t.Parallel()
	_, err := ReadFile("testdata/azure.csv", Options{Format: Mooncake})
	if err == nil || !strings.Contains(err.Error(), "azure.csv:1: want a JSON object") {
		t.Errorf("got %v", err)
	}
	_, err = ReadFile("testdata/mooncake.jsonl", Options{Format: BurstGPT})
	if err == nil || !strings.Contains(err.Error(), "mooncake.jsonl:1: invalid CSV") {
		t.Errorf("got %v", err)
	}
}

// Every field's bounds, and the malformed lines, are errors "NAME:LINE: why".
func TestReadBounds(t *testing.T) {
	t.Parallel()
	moon := func(s string) string {
		return `{"timestamp": 0, "input_length": 10, "output_length": 1}` + "\n" + s + "\n"
	}
	azure := "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.68,10,1\n"
	burst := "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n1,m,10,1,11,x\n"
	cases := []struct{ name, in, want string }{
		{"not json", moon(`[1]`), "t:2: want a JSON object"},
		{"bad json", moon(`{"timestamp": `), "t:2: invalid JSON"},
		{"no timestamp", moon(`{"input_length": 10, "output_length": 1}`), `t:2: no "timestamp"`},
		{"negative timestamp", moon(`{"timestamp": -5, "input_length": 10, "output_length": 1}`), "t:2: timestamp (ms) -0.005"},
		{"huge timestamp", moon(`{"timestamp": 1e300, "input_length": 10, "output_length": 1}`), "t:2: timestamp (ms)"},
		{"zero input", moon(`{"timestamp": 1, "input_length": 0, "output_length": 1}`), "t:2: input length 0"},
		{"huge input", moon(`{"timestamp": 1, "input_length": 1000001, "output_length": 1}`), "t:2: input length 1000001"},
		{"fraction input", moon(`{"timestamp": 1, "input_length": 1.5, "output_length": 1}`), "t:2: invalid JSON"},
		{"negative output", moon(`{"timestamp": 1, "input_length": 5, "output_length": -1}`), "t:2: output length -1"},
		{"huge output", moon(`{"timestamp": 1, "input_length": 5, "output_length": 1000001}`), "t:2: output length 1000001"},
		{"too many hashes", moon(`{"timestamp": 1, "input_length": 513, "output_length": 1, "hash_ids": [1, 2, 3]}`), "t:2: 3 hash ids for 513 input tokens: at most 2 blocks"},
		{"negative hash", moon(`{"timestamp": 1, "input_length": 5, "output_length": 1, "hash_ids": [-1]}`), "t:2: hash id -1"},
		{"huge hash", moon(`{"timestamp": 1, "input_length": 5, "output_length": 1, "hash_ids": [9007199254740992]}`), "t:2: hash id 9007199254740992"},
		{"bailian no chat id", `{"chat_id": 1, "parent_chat_id": -1, "timestamp": 0, "input_length": 4, "output_length": 1}` + "\n" + `{"timestamp": 1, "input_length": 4, "output_length": 1, "chat_id": null}`, `t:2: no "chat_id"`},
		{"bailian duplicate", `{"chat_id": 1, "parent_chat_id": -1, "timestamp": 0, "input_length": 4, "output_length": 1}` + "\n" + `{"chat_id": 1, "parent_chat_id": -1, "timestamp": 1, "input_length": 4, "output_length": 1}`, "t:2: chat_id 1 is not unique"},
		{"bailian turn", `{"chat_id": 1, "parent_chat_id": -1, "timestamp": 0, "input_length": 4, "output_length": 1, "turn": -2}`, "t:1: turn -2"},
		{"azure time", azure + "yesterday,10,1\n", `t:3: TIMESTAMP "yesterday"`},
		{"azure tokens", azure + "2023-11-16 18:15:47,ten,1\n", `t:3: ContextTokens "ten"`},
		{"azure far", azure + "2100-11-16 18:15:47,10,1\n", "t:3: TIMESTAMP 2100-11-16 18:15:47 is more than"},
		{"azure header", "when,in,out\n", `t:1: the header has no "TIMESTAMP" column`},
		{"azure short", azure + "2023-11-16 18:15:47,10\n", `t:3: no "GeneratedTokens" field (2 fields)`},
		{"burst time", burst + "soon,m,10,1,11,x\n", `t:3: column Timestamp "soon"`},
		{"burst nan", burst + "NaN,m,10,1,11,x\n", "t:3: Timestamp NaN"},
		{"burst output", burst + "2,m,10,-3,7,x\n", "t:3: output length -3"},
		{"burst quote", burst + "2,\"m,10,1\n", "t:3: invalid CSV"},
		{"only skipped", "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n1,m,10,0,10,x\n", "t: no requests to replay (1 line skipped)"},
		{"unknown", "hello\n", "t: not a trace toksweep knows"},
		{"empty", "", "t: not a trace toksweep knows"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			o := Options{}
			if strings.HasPrefix(c.name, "bailian") {
				o.Format = Bailian
			}
			if c.name == "azure header" {
				o.Format = Azure
			}
			_, err := Read(strings.NewReader(c.in), "t", o)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want %q", err, c.want)
			}
			if err != nil && strings.Contains(err.Error(), "\n") {
				t.Errorf("error on more than one line: %q", err)
			}
		})
	}
}

// The bounds on the file and on one line hold before memory grows.
func TestReadSizeBounds(t *testing.T) {
	t.Parallel()
	long := `{"timestamp": 0, "input_length": 10, "output_length": 1, "x": "` + strings.Repeat("a", 17<<20) + `"}`
	_, err := Read(strings.NewReader(long), "t", Options{})
	if err == nil || !strings.Contains(err.Error(), "t:1: line longer than 16 MiB") {
		t.Errorf("long line: %v", err)
	}
	if _, err := Read(strings.NewReader("x"), "t", Options{BlockSize: MaxBlockSize + 1}); err == nil || !strings.Contains(err.Error(), "block size") {
		t.Errorf("block size: %v", err)
	}
	if testing.Short() {
		return
	}
	f, err := os.Open("/dev/zero")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	_, err = Read(f, "/dev/zero", Options{Format: Mooncake})
	if err == nil || !strings.Contains(err.Error(), "line longer") && !strings.Contains(err.Error(), "larger than") {
		t.Errorf("/dev/zero: %v", err)
	}
}

func TestDetectIgnoresBlankLinesAndBOM(t *testing.T) {
	t.Parallel()
	tr, err := Read(strings.NewReader("\xef\xbb\xbf\n\n"+`{"timestamp": 5, "input_length": 10, "output_length": 1}`), "t", Options{})
	if err != nil || tr.Format != Mooncake || tr.Requests[0].Line != 3 {
		t.Fatalf("%v %+v", err, tr)
	}
}

func TestParseFormat(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "auto"} {
		if f, err := ParseFormat(s); f != "" || err != nil {
			t.Errorf("%q: %q %v", s, f, err)
		}
	}
	if f, err := ParseFormat("burstgpt"); f != BurstGPT || err != nil {
		t.Errorf("burstgpt: %q %v", f, err)
	}
	if _, err := ParseFormat("sharegpt"); err == nil {
		t.Error("sharegpt accepted")
	}
}

func TestWindow(t *testing.T) {
	t.Parallel()
	w, err := ParseWindow("250ms:1")
	if err != nil || w != (Window{250 * time.Millisecond, time.Second}) {
		t.Fatalf("%v %v", w, err)
	}
	tr := read(t, "testdata/mooncake.jsonl", Options{})
	s, err := tr.Slice(w)
	if err != nil {
		t.Fatal(err)
	}
	check(t, s, []at{{2, 0, 600, 10, 1, -1}, {5, 650 * time.Millisecond, 1100, 30, 2, -1}})
	if len(tr.Requests) != 4 {
		t.Error("Slice changed its trace")
	}
	if _, err := tr.Slice(Window{time.Hour, time.Second}); err == nil || !strings.Contains(err.Error(), "holds no request") {
		t.Errorf("empty window: %v", err)
	}
	for _, bad := range []string{"5m", "a:1", "1:b", "1:0", "-1s:1s", "1:NaN", "1:1e300"} {
		if _, err := ParseWindow(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// The summaries of the testdata traces, computed by hand in the comments.
func TestSummarize(t *testing.T) {
	t.Parallel()
	// Mooncake: 4 requests at 0, 0.25, 0.9, 3 s. Prompt tokens 1100 + 600 +
	// 1100 + 512 = 3312. The second request finds block 0 (512 tokens)
	// sent; the third blocks 0 and 1 (1024); the fourth nothing.
	m := Summarize(read(t, "testdata/mooncake.jsonl", Options{}))
	want := Summary{Format: Mooncake, BlockSize: 512, Requests: 4, Skipped: 1, Span: 3 * time.Second, MeanRate: 1, PeakRate1s: 3,
		Input:  Distribution{Mean: 828, Min: 512, P50: 600, P90: 1100, P99: 1100, Max: 1100},
		Output: Distribution{Mean: 16.25, Min: 5, P50: 10, P90: 30, P99: 30, Max: 30}, HasHashes: true}
	if math.Abs(m.PrefixReuse-1536.0/3312) > 1e-12 {
		t.Errorf("prefix reuse %v, want 1536/3312", m.PrefixReuse)
	}
	m.PrefixReuse = 0
	if m != want {
		t.Errorf("mooncake:\n got %+v\nwant %+v", m, want)
	}
	// Bailian: blocks of 16. Request 12 finds 100, 101 (16 each) and the 8
	// tokens of 102 that request 10 sent; request 13 finds 100-103 in full
	// and the 6 tokens of 104: (40 + 70) / 220.
	b := Summarize(read(t, "testdata/bailian.jsonl", Options{}))
	if b.PrefixReuse != 0.5 || b.Sessions != 1 || b.Turns != 3 || b.MaxTurns != 3 || b.PeakRate1s != 2 || b.MeanRate != 0.75 {
		t.Errorf("bailian: %+v", b)
	}
	a := Summarize(read(t, "testdata/azure.csv", Options{}))
	if a.PrefixReuse != 0 || a.HasHashes || a.Span != 4*time.Second || a.PeakRate1s != 2 || a.Sessions != 0 {
		t.Errorf("azure: %+v", a)
	}
	g := Summarize(read(t, "testdata/burstgpt.csv", Options{}))
	if g.Requests != 3 || g.Skipped != 1 || g.PeakRate1s != 1 || g.Span != 3250*time.Millisecond {
		t.Errorf("burstgpt: %+v", g)
	}
}
