package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// decodeOld is how the handler decoded a body before decodeRequest: the
// reference plainIDs must agree with.
func decodeOld(body []byte, req *genRequest) error {
	return json.NewDecoder(bytes.NewReader(body)).Decode(req)
}

// outcome is what the handler makes of a body: the decode error, the
// request's other fields, and the completions prompt's ids or error.
type outcome struct {
	decodeErr string
	req       genRequest // Prompt and ids cleared
	ids       []uint32
	promptErr string
}

func outcomeOf(body []byte, decode func([]byte, *genRequest) error) outcome {
	var req genRequest
	if err := decode(body, &req); err != nil {
		return outcome{decodeErr: err.Error()}
	}
	ids, _, aerr := promptIDs(completionsAPI, &req)
	o := outcome{ids: ids}
	if aerr != nil {
		o.promptErr, o.ids = aerr.Error(), nil
	}
	req.Prompt, req.ids = nil, nil
	o.req = req
	return o
}

// checkSame fails when decodeRequest and encoding/json disagree on body,
// and reports whether the hand reader took it (plainIDs ok).
func checkSame(t *testing.T, body []byte) bool {
	t.Helper()
	got, want := outcomeOf(body, decodeRequest), outcomeOf(body, decodeOld)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("body %.200q:\n got %+v\nwant %+v", body, got, want)
	}
	_, _, ok := plainIDs(body)
	return ok
}

// decodeRequest reads a body as encoding/json does, on hand-written
// bodies: plain id lists in every position among other members (which
// the hand reader takes), and every kind of body it must leave to
// encoding/json (escapes, a key equal to "prompt" but for case, two
// prompts, numbers that are not plain integers, malformed JSON, trailing
// data after the object, which a decoder does not read).
func TestPlainIDsAgreeWithEncodingJSON(t *testing.T) {
	t.Parallel()
	hand := []string{
		`{"prompt": [1, 2, 3]}`,
		`{"prompt":[1,2,3],"max_tokens":4}`,
		`{"model":"m","prompt":[7],"stream":true}`,
		`{"model":"m","stream":true,"stream_options":{"include_usage":true},"prompt":[0, -0, -5, 4294967296, 999999999999999999]}`,
		" \n\t{ \"prompt\" :\n[ 1 ,2\t] , \"max_tokens\" : 3 } ",
		`{"prompt":[1,2]} trailing garbage`,
		`{"prompt":[1,2]}{"prompt":[3]}`,
		`{"x":{"a":[1,{"b":"}"}],"c":"\"]"},"prompt":[5],"y":[[],{}],"z":null,"w":false,"v":true,"u":-1.5e3}`,
		`{"messages":[{"role":"user","content":"hi"}],"prompt":[1]}`,
		`{"ignore_eos":true,"min_tokens":2,"max_completion_tokens":5,"prompt":[3,4]}`,
	}
	fallback := []string{
		`{"prompt": []}`,
		`{"prompt": "a string"}`,
		`{"prompt": ["a", "b"]}`,
		`{"prompt": [1.5]}`,
		`{"prompt": [1e3]}`,
		`{"prompt": [1E3]}`,
		`{"prompt": [01]}`,
		`{"prompt": [1,]}`,
		`{"prompt": [,1]}`,
		`{"prompt": [1 2]}`,
		`{"prompt": [-]}`,
		`{"prompt": [1, null]}`,
		`{"prompt": [9223372036854775807]}`,
		`{"prompt": [9223372036854775808]}`,
		`{"prompt": [12345678901234567890]}`,
		`{"prompt": [1], "prompt": [2]}`,
		`{"prompt": [1], "Prompt": [2]}`,
		`{"PROMPT": [1]}`,
		`{"pr\u006fmpt": [1]}`,
		`{"prompt": [1], "model": "\q"}`,
		`{"prompt": [1], "model": "a` + "\x01" + `"}`,
		`{"prompt": [1], "max_tokens": "4"}`,
		`{"prompt": [1], "max_tokens": 1-2}`,
		`{"prompt": [1], "max_tokens": tru}`,
		`{"prompt": [1],}`,
		`{"prompt": [1] "max_tokens": 2}`,
		`{"prompt" [1]}`,
		`{prompt: [1]}`,
		`{"prompt": [1]`,
		`{"prompt": [1`,
		`{}`,
		`{"max_tokens": 2}`,
		`[1, 2]`,
		`null`,
		``,
		`{"prompt": [1], "x": ` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`,
		`{"prompt": [1], "stream": true, "stream_options": {"include_usage": 1}}`,
	}
	for _, b := range hand {
		if !checkSame(t, []byte(b)) {
			t.Errorf("body %q went to encoding/json, want it read by hand", b)
		}
	}
	for _, b := range fallback {
		checkSame(t, []byte(b)) // taken by hand or not, the outcome must be the same
	}
}

// On many generated bodies (members in random order, random ids, white
// space anywhere JSON allows it) and on every prefix and many one-byte
// corruptions of some of them, decodeRequest and encoding/json agree; the
// well-formed bodies are all read by hand.
func TestPlainIDsAgreeOnGeneratedBodies(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(22, 7))
	ws := func() string { return []string{"", "", " ", "\n", "\t ", "\r\n"}[rng.IntN(6)] }
	handled := 0
	const n = 400
	for i := range n {
		var ids []string
		for range 1 + rng.IntN(50) {
			v := rng.Int64N(1 << 40)
			if rng.IntN(10) == 0 {
				v = -v
			}
			ids = append(ids, ws()+fmt.Sprint(v)+ws())
		}
		members := []string{`"prompt"` + ws() + ":" + ws() + "[" + strings.Join(ids, ",") + "]"}
		others := []string{
			`"model":"m"`, `"max_tokens":` + fmt.Sprint(rng.IntN(100)), `"stream":true`,
			`"stream_options":{"include_usage":true}`, `"temperature":0.5`, `"stop":["\n","a\"b"]`,
			`"ignore_eos":false`, `"min_tokens":1`, `"extra":{"k":[1,{"x":null}]}`,
		}
		for _, o := range others {
			if rng.IntN(2) == 0 {
				members = append(members, strings.Replace(o, ":", ws()+":"+ws(), 1))
			}
		}
		rng.Shuffle(len(members), func(a, b int) { members[a], members[b] = members[b], members[a] })
		for k := range members {
			members[k] = ws() + members[k] + ws()
		}
		body := []byte(ws() + "{" + strings.Join(members, ",") + "}" + ws())
		if checkSame(t, body) {
			handled++
		}
		if i%20 != 0 {
			continue
		}
		for cut := range len(body) {
			checkSame(t, body[:cut])
		}
		for range 50 {
			bad := bytes.Clone(body)
			bad[rng.IntN(len(bad))] = `{}[]:,"\ -.e0123456789ntfxP`[rng.IntN(27)]
			checkSame(t, bad)
		}
	}
	if handled != n {
		t.Errorf("%d of %d well-formed bodies read by hand, want all", handled, n)
	}
}

// The hand reader is what makes a token-id body cheap: it decodes a
// 2,000-id prompt without encoding/json scanning the list (allocations:
// the ids and the rest of the body, not a []int and a RawMessage besides).
func BenchmarkDecodeRequest(b *testing.B) {
	ids := make([]string, 2000)
	for i := range ids {
		ids[i] = fmt.Sprint(10000 + i*7)
	}
	body := []byte(`{"prompt":[` + strings.Join(ids, ",") + `],"max_tokens":4,"model":"m","stream":true,"stream_options":{"include_usage":true}}`)
	for _, bc := range []struct {
		name   string
		decode func([]byte, *genRequest) error
	}{{"hand", decodeRequest}, {"encoding-json", decodeOld}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				var req genRequest
				if err := bc.decode(body, &req); err != nil {
					b.Fatal(err)
				}
				if _, _, e := promptIDs(completionsAPI, &req); e != nil {
					b.Fatal(e)
				}
			}
		})
	}
}
