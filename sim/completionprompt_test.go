package sim

import (
	"encoding/json"
	"slices"
	"testing"
)

// A completions prompt of each kind the endpoint takes, white space
// around its tokens included, and the ones it refuses: the kind is read
// from the first bytes, so a list of ids is never taken for a list of
// strings, nor the other way round.
func TestCompletionPromptKinds(t *testing.T) {
	for _, c := range []struct {
		raw  string
		ids  []uint32 // a list of token ids, taken as it is
		text string   // else its text, tokenized by the word rule
		bad  bool
	}{
		{raw: `"a b c"`, text: "a b c"},
		{raw: ` ["a b", "c"]`, text: "a b c"},
		{raw: "[\n\t\"a\" ]", text: "a"},
		{raw: `[5, 1000, 31999]`, ids: []uint32{5, 1000, 31999}},
		{raw: " [ 7 ]", ids: []uint32{7}},
		{raw: `null`, text: ""},
		{raw: `[]`, bad: true},
		{raw: `42`, bad: true},
		{raw: `["a", 1]`, bad: true},
		{raw: `[1, "a"]`, bad: true},
		{raw: `[1.5]`, bad: true},
		{raw: `{"a": 1}`, bad: true},
		{raw: `[`, bad: true},
	} {
		ids, text, err := completionPromptIDs(json.RawMessage(c.raw))
		switch {
		case c.bad:
			if err == nil {
				t.Errorf("%s: ids %v, text %v; want refused", c.raw, ids, text)
			}
		case err != nil:
			t.Errorf("%s: %v", c.raw, err)
		case c.ids != nil:
			if text != nil || !slices.Equal(ids, c.ids) {
				t.Errorf("%s: ids %v (text %v), want %v and no text", c.raw, ids, text, c.ids)
			}
		case text == nil || text.contents[0] != c.text || !slices.Equal(ids, textIDs(c.text)):
			t.Errorf("%s: text %v, ids %v; want the text %q", c.raw, text, ids, c.text)
		}
	}
}

// A 3,000-id prompt is decoded once, as ids: a few allocations (the list
// as it grows, and its copy), not one per id (decoding it as strings first
// made an error per element, two thirds of a replay's allocations).
func TestCompletionPromptIDsDecodeOnce(t *testing.T) {
	ids := make([]int, 3000)
	for i := range ids {
		ids[i] = 1000 + i
	}
	raw, _ := json.Marshal(ids)
	allocs := testing.AllocsPerRun(5, func() {
		if _, _, err := completionPromptIDs(raw); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 10 {
		t.Errorf("%v allocations decoding 3,000 ids, want a few", allocs)
	}
}
