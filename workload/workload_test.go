package workload

import (
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/internal/tokcount"
	"github.com/toksweep/toksweep/sim"
)

func ids(ps []client.Prompt) []int {
	out := make([]int, len(ps))
	for i, p := range ps {
		out[i] = p.ID
	}
	return out
}

func TestLoadSources(t *testing.T) {
	tests := []struct {
		name    string
		o       Options
		n       int
		source  string
		wantErr string
	}{
		{"default", Options{DefaultPrompt: "essay"}, 1, "default prompt, seed 0", ""},
		{"prompt", Options{Prompt: "hi", PromptSet: true}, 1, "--prompt, seed 0", ""},
		{"jsonl by extension", Options{Dataset: datasetPath("requests.jsonl")}, 4, "jsonl ", ""},
		{"sharegpt", Options{Dataset: datasetPath("sharegpt.json"), Format: ShareGPT, Seed: 3}, 3, "(1 conversations skipped), seed 3", ""},
		{"synthetic", Options{InputTokens: 100}, syntheticFixedCount, "synthetic: 8 prompts of ~100 tokens, seed 0", ""},
		{"synthetic spread", Options{InputTokens: 100, InputStddev: 10, SharedPrefixTokens: 20}, syntheticSpreadCount, "(stddev 10), 20 shared", ""},
		{"two sources", Options{Prompt: "hi", PromptSet: true, InputTokens: 10}, 0, "", "--prompt and --input-tokens are exclusive"},
		{"empty prompt", Options{PromptSet: true, Prompt: " "}, 0, "", "--prompt is empty"},
		{"json needs a format", Options{Dataset: datasetPath("sharegpt.json")}, 0, "", "cannot tell the format"},
		{"bad format", Options{Dataset: datasetPath("sharegpt.json"), Format: "csv"}, 0, "", `invalid --dataset-format "csv"`},
		{"format alone", Options{Format: JSONL}, 0, "", "--dataset-format needs --dataset"},
		{"missing file", Options{Dataset: "nope.jsonl"}, 0, "", "cannot read --dataset"},
		{"prefix alone", Options{SharedPrefixTokens: 5}, 0, "", "need --input-tokens"},
		{"prefix too long", Options{InputTokens: 100, SharedPrefixTokens: 98}, 0, "", "want 0 to 97"},
		{"negative stddev", Options{InputTokens: 100, InputStddev: -1}, 0, "", "want ≥ 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, err := Load(tt.o)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(set.Prompts) != tt.n || !strings.Contains(set.Source, tt.source) {
				t.Errorf("%d prompts, source %q; want %d, %q", len(set.Prompts), set.Source, tt.n, tt.source)
			}
			if stamped := tt.o.InputTokens > 0 || tt.name == "default"; (set.Stamp != nil) != stamped {
				t.Errorf("stamp slot %v for %+v", set.Stamp, tt.o)
			}
		})
	}
}

// TestDefaultPromptIsStamped: by default no two requests share a prefix:
// each one's first line is its own stamp, and the prompt follows.
func TestDefaultPromptIsStamped(t *testing.T) {
	set, err := Load(Options{DefaultPrompt: "Write an essay."})
	if err != nil {
		t.Fatal(err)
	}
	next := set.Prompter()
	a, b := next(0).Text, next(0).Text
	la, _, _ := strings.Cut(a, "\n")
	lb, _, _ := strings.Cut(b, "\n")
	if a == b || la == lb || !strings.HasSuffix(a, "\nWrite an essay.") || !strings.HasSuffix(b, "\nWrite an essay.") {
		t.Errorf("two default requests: %q and %q, want different first lines before the prompt", a, b)
	}
}

func TestOrderIsASeededPermutation(t *testing.T) {
	load := func(seed int64) []int {
		set, err := Load(Options{InputTokens: 50, InputStddev: 5, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		return ids(set.Prompts)
	}
	a, b, c := load(1), load(1), load(2)
	if !slices.Equal(a, b) {
		t.Fatal("the same seed gave two orders")
	}
	if slices.Equal(a, c) {
		t.Fatal("seeds 1 and 2 gave the same order")
	}
	if sorted := slices.Sorted(slices.Values(a)); sorted[0] != 0 || sorted[len(sorted)-1] != len(a)-1 || len(slices.Compact(sorted)) != len(a) {
		t.Fatalf("order %v is not a permutation of the set", a)
	}
	if slices.IsSorted(a) {
		t.Fatal("the set was not shuffled")
	}
}

func TestIgnoreSourceMaxTokens(t *testing.T) {
	set, err := Load(Options{Dataset: datasetPath("sharegpt.json"), Format: ShareGPT, IgnoreSourceMaxTokens: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range set.Prompts {
		if p.MaxTokens != 0 {
			t.Fatalf("prompt %d keeps max_tokens %d", p.ID, p.MaxTokens)
		}
	}
}

func TestWordsFor(t *testing.T) {
	for n := 1; n <= 5000; n++ {
		w := wordsFor(n)
		if got := tokcount.FromWords(w); got > n || (n > 1 && got < n-1) || tokcount.FromWords(w+1) <= n {
			t.Fatalf("wordsFor(%d) = %d (estimate %d)", n, w, got)
		}
	}
	if tokcount.FromWords(10) != 13 || EstimateTokens("one two  three\nfour") != 6 || EstimateTokens(" ") != 0 {
		t.Fatal("EstimateTokens is not ceil(1.3 × words)")
	}
}

// TestSyntheticLength checks that synthetic prompts land within ±5% of N by
// the simulator's counts, for both APIs (usage.prompt_tokens is checked end
// to end in app). The chat count includes the simulator's 4-token stand-in
// for a chat template, which is why the smallest N here is 200.
func TestSyntheticLength(t *testing.T) {
	for _, n := range []int{200, 500, 4000} {
		set, err := Load(Options{InputTokens: n, SharedPrefixTokens: n / 4, Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range set.Prompts {
			p = set.Stamp.Apply(p, 12345)
			for what, got := range map[string]int{
				"estimate": EstimateTokens(p.Text), "sim completions": sim.PromptTokens(p.Text), "sim chat": sim.ChatPromptTokens(p.Text),
			} {
				if math.Abs(float64(got-n)) > 0.05*float64(n) {
					t.Errorf("N=%d prompt %d: %s %d tokens, want within 5%%", n, p.ID, what, got)
				}
			}
			if est := EstimateTokens(p.Text); est > n || est < n-1 {
				t.Errorf("N=%d: estimate %d, want %d or %d", n, est, n-1, n)
			}
		}
	}
}

func TestSyntheticSpread(t *testing.T) {
	const n, sd = 1000, 100
	set, err := Load(Options{InputTokens: n, InputStddev: sd})
	if err != nil {
		t.Fatal(err)
	}
	var sum, sq float64
	for _, p := range set.Prompts {
		x := float64(EstimateTokens(p.Text))
		sum += x
		sq += x * x
	}
	k := float64(len(set.Prompts))
	mean := sum / k
	std := math.Sqrt(sq/k - mean*mean)
	if math.Abs(mean-n) > 30 || std < 70 || std > 130 {
		t.Errorf("lengths mean %.0f stddev %.0f, want about %d and %d", mean, std, n, sd)
	}
}

var stampRE = regexp.MustCompile(`^[0-9a-f]{6}-[0-9]{8}$`)

func TestSharedPrefixAndStamps(t *testing.T) {
	const shared = 40
	set, err := Load(Options{InputTokens: 200, InputStddev: 20, SharedPrefixTokens: shared})
	if err != nil {
		t.Fatal(err)
	}
	sharedWords := wordsFor(shared)
	first := strings.Fields(set.Prompts[0].Text)[:sharedWords]
	seen := map[string]bool{}
	for i, p := range set.Prompts {
		p = set.Stamp.Apply(p, uint64(i+1))
		words := strings.Fields(p.Text)
		if !slices.Equal(words[:sharedWords], first) {
			t.Fatalf("prompt %d does not start with the shared prefix", p.ID)
		}
		stamp := words[sharedWords]
		if !stampRE.MatchString(stamp) || seen[stamp] {
			t.Fatalf("prompt %d stamp %q: want a new xxxxxx-nnnnnnnn", p.ID, stamp)
		}
		seen[stamp] = true
	}
	// Without a shared prefix the stamp is the very first word.
	plain, err := Load(Options{InputTokens: 30})
	if err != nil {
		t.Fatal(err)
	}
	if w := strings.Fields(plain.Stamp.Apply(plain.Prompts[0], 1).Text)[0]; !stampRE.MatchString(w) {
		t.Fatalf("first word %q, want the stamp", w)
	}
	// Another run draws another tag.
	again, _ := Load(Options{InputTokens: 30})
	if again.Stamp.tag == plain.Stamp.tag && again.Stamp.tag == newStampSlot("").tag {
		t.Errorf("three runs drew the same tag %s", again.Stamp.tag)
	}
	// A prompt that is not synthetic is left alone.
	if p := plain.Stamp.Apply(client.Prompt{Text: "short"}, 1); p.Text != "short" {
		t.Errorf("Apply changed a foreign prompt to %q", p.Text)
	}
}

func TestPrompterIsUniqueUnderConcurrency(t *testing.T) {
	set, err := Load(Options{InputTokens: 20})
	if err != nil {
		t.Fatal(err)
	}
	prompt := set.Prompter()
	texts := make([][]string, 8)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 50 {
				texts[w] = append(texts[w], prompt(w+i).Text)
			}
		})
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, text := range slices.Concat(texts...) {
		stamp := strings.Fields(text)[0]
		if seen[stamp] {
			t.Fatalf("stamp %s sent twice", stamp)
		}
		seen[stamp] = true
	}
	if len(seen) != 400 {
		t.Fatalf("%d stamps, want 400", len(seen))
	}
	if p := set.Prompter()(len(set.Prompts) + 1); p.ID != set.Prompts[1].ID {
		t.Errorf("ticket len+1 sends prompt %d, want %d (Prompts[seq %% len])", p.ID, set.Prompts[1].ID)
	}
}
