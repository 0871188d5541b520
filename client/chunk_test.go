package client

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestParseChunk checks what an event means, with the fast scanner and with
// the encoding/json reference, which must agree.
func TestParseChunk(t *testing.T) {
	t.Parallel()
	type want struct {
		ok                 bool
		content, reasoning bool
		finish             string
		usage              *usage
		sent               *int64
		errVal             string
	}
	valid := want{ok: true}
	content := want{ok: true, content: true}
	reasoning := want{ok: true, reasoning: true}
	n123 := int64(123)
	tests := []struct {
		data string
		want want
	}{
		{`{"choices":[{"delta":{"role":"assistant"}}]}`, valid},
		{`{"choices":[{"delta":{"content":""}}]}`, valid},
		{`{"choices":[{"delta":{"content":null}}]}`, valid},
		{`{"choices":[{"delta":{"content":"a"}}]}`, content},
		{`{"choices":[{"delta":{"content":"\u0000"}}]}`, content},
		{`{"choices":[{"delta":{"content":7}}]}`, valid},
		{`{"choices":[{"delta":{"reasoning_content":"x"}}]}`, reasoning},
		{`{"choices":[{"delta":{"reasoning":"x","content":null}}]}`, reasoning},
		{`{"choices":[{"delta":{"reasoning":"x","content":"y"}}]}`, want{ok: true, content: true, reasoning: true}},
		{`{"choices":[{"text":"x"}]}`, content},
		{`{"choices":[{"text":""},{"delta":{"content":"b"}}]}`, content},
		{`{"choices":[1,null,"s",{"text":"x"}]}`, content},
		{`{"choices":{"text":"x"}}`, valid},
		{`{"choices":[{"delta":{},"finish_reason":"stop"}]}`, want{ok: true, finish: "stop"}},
		{`{"choices":[{"finish_reason":"stop"},{"finish_reason":"length"},{"finish_reason":""}]}`, want{ok: true, finish: "length"}},
		{`{"choices":[{"finish_reason":"st\u006fp"}]}`, want{ok: true, finish: "stop"}},
		{`{"choices":[{"finish_reason":null}]}`, valid},
		{`{"usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}}`, valid},
		{`{"usage":{"prompt_tokens":6,"completion_tokens":6}}`, want{ok: true, usage: &usage{6, 6, 0}}},
		{`{"usage":{"completion_tokens":9,"completion_tokens_details":{"reasoning_tokens":4}}}`, want{ok: true, usage: &usage{0, 9, 4}}},
		{`{"usage":{"prompt_tokens":6.0,"completion_tokens":-2}}`, valid},
		{`{"usage":{"prompt_tokens":-1,"completion_tokens":2}}`, want{ok: true, usage: &usage{0, 2, 0}}},
		{`{"usage":{"prompt_tokens":99999999999999999999,"completion_tokens":1e3}}`, valid},
		{`{"usage":null}`, valid},
		{`{"usage":5}`, valid},
		{`{"x_sent_unix_ns":123}`, want{ok: true, sent: &n123}},
		{`{"x_sent_unix_ns":"123"}`, valid},
		{`{"x_sent_unix_ns":1.5}`, valid},
		{`{"error":{"message":"x","code":429}}`, want{ok: true, errVal: `{"message":"x","code":429}`}},
		{`{"error":null}`, valid},
		{`{"error":"busy"}`, want{ok: true, errVal: `"busy"`}},
		// Where encoding/json's rules are subtle, the scanner defers to it.
		{`{"choices":[{"delta":{"content":"a"}}],"choices":[]}`, valid},
		{`{"choices":[{"delta":{"Content":"a"}}]}`, content},
		{`{"choices":[{"delta":{"\u0063ontent":"a"}}]}`, content},
		{`{"usage":{"completion_to` + "\u212a" + `ens":3}}`, want{ok: true, usage: &usage{0, 3, 0}}},
		{`{"choices":[{"delta":{"contenT":"a","content":""}}]}`, valid},
		{" \t\r\n{\"choices\":[]}\n ", valid},
		// Not a JSON object: malformed.
		{`{"choices":[`, want{}},
		{`[{"choices":[]}]`, want{}},
		{`null`, want{}},
		{`{} x`, want{}},
		{`{"a":01}`, want{}},
		{"{\"a\":\"\x01\"}", want{}},
		{`{"a":"\q"}`, want{}},
		{`{"a":"\u12"}`, want{}},
		{`{"a":tru}`, want{}},
		{`{"a":1,}`, want{}},
		{`{"a" 1}`, want{}},
		{``, want{}},
	}
	for _, tt := range tests {
		for name, parse := range map[string]func([]byte, *chunk) bool{"fast": parseChunk, "std": parseChunkStd} {
			var c chunk
			got := want{ok: parse([]byte(tt.data), &c), content: c.content, reasoning: c.reasoning,
				finish: string(c.finish), errVal: string(c.errVal)}
			if c.hasUsage {
				got.usage = &c.usage
			}
			if c.hasSent {
				got.sent = &c.sent
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("%s %s:\ngot  %+v\nwant %+v", name, tt.data, got, tt.want)
			}
		}
	}
}

// TestParseChunkDepth checks that validity matches json.Valid at
// encoding/json's nesting limit.
func TestParseChunkDepth(t *testing.T) {
	t.Parallel()
	for _, depth := range []int{maxDepth - 1, maxDepth} { // the object itself is one level
		data := []byte(`{"a":` + strings.Repeat("[", depth) + strings.Repeat("]", depth) + "}")
		var c chunk
		if got, want := parseChunk(data, &c), json.Valid(data); got != want {
			t.Errorf("depth %d: parseChunk %v, json.Valid %v", depth+1, got, want)
		}
	}
}

// TestParseChunkAllocs checks that the fast path does not allocate.
func TestParseChunkAllocs(t *testing.T) {
	data := bytes.Join(splitEvents(readFile(t, sseDir, "reasoning-content.sse")), nil)
	var events [][]byte
	for _, line := range bytes.Split(data, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("data: {")); ok {
			events = append(events, append([]byte("{"), v...))
		}
	}
	var c chunk
	if n := testing.AllocsPerRun(100, func() {
		for _, e := range events {
			parseChunk(e, &c)
		}
	}); n != 0 {
		t.Errorf("%v allocations per stream", n)
	}
}
