package workload

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/internal/tokcount"
)

// Dataset formats, the values of Options.Format.
const (
	JSONL    = "jsonl"
	ShareGPT = "sharegpt"
)

// Options selects one prompt source and how it is ordered. The zero value
// plus DefaultPrompt is the default single-prompt workload.
type Options struct {
	Prompt     string // a fixed prompt (--prompt); PromptSet says it was given
	PromptSet  bool
	PromptFile string // a fixed prompt read from this file (--prompt-file)

	Dataset string // a dataset file (--dataset)
	// Format is the dataset's format, JSONL or ShareGPT; empty means JSONL
	// for a .jsonl file and an error otherwise.
	Format string

	InputTokens        int // synthetic prompts of about this many tokens (--input-tokens N)
	InputStddev        int // their standard deviation in tokens (--input-tokens N:STDDEV)
	SharedPrefixTokens int // tokens shared by every synthetic prompt (--shared-prefix-tokens)

	// Multi-turn sessions (conversation.go): Turns makes synthetic
	// sessions of that many turns (--turns), opening with a message of
	// InputTokens (DefaultOpeningTokens when 0) and going on with
	// FollowUpTokens each; MultiTurn replays a dataset's whole
	// conversations (--multi-turn), capped at MaxTurns (--max-turns). The
	// sessions mode checks them before Load (mode/sessions): each
	// within MaxTurns, Turns with no other source, MultiTurn with a
	// Dataset, MaxTurns with MultiTurn.
	Turns     int
	MultiTurn bool
	MaxTurns  int

	// IgnoreSourceMaxTokens drops per-request output targets from the
	// source, so that the client's configured max_tokens applies to all.
	IgnoreSourceMaxTokens bool
	Seed                  int64  // seeds the order and the synthetic text
	DefaultPrompt         string // the prompt when no source is given
}

// Set is a loaded prompt set.
type Set struct {
	// Prompts is the set in send order: the source's entries permuted by
	// Options.Seed.
	Prompts []client.Prompt
	// Source describes the source in one line, for the run's records,
	// e.g. "sharegpt sg.json: 812 prompts (3 skipped), seed 0".
	Source string
	// Skipped counts ShareGPT conversations without a prompt/answer pair.
	Skipped int
	// Stamp is where Prompter writes each request's unique stamp in
	// synthetic prompts and the default prompt; nil for every other source.
	Stamp *StampSlot
	// Sessions hands out multi-turn sessions when Options asked for them
	// (Prompts then holds their first turns); nil otherwise.
	Sessions *Sessions
}

// Load reads or builds the prompt set that o selects. Its errors are one
// line and name the flag, file or line at fault.
func Load(o Options) (*Set, error) {
	if o.Turns > 0 && o.InputTokens == 0 {
		o.InputTokens = DefaultOpeningTokens
	}
	if err := o.check(); err != nil {
		return nil, err
	}
	var (
		set *Set
		err error
	)
	switch {
	case o.Turns > 0 || o.MultiTurn:
		set, err = loadSessions(o)
	case o.Dataset != "":
		set, err = loadDataset(o)
	case o.InputTokens > 0:
		set, err = synthetic(o)
	default:
		set, err = fixed(o)
	}
	if err != nil {
		return nil, err
	}
	if o.IgnoreSourceMaxTokens {
		for i := range set.Prompts {
			set.Prompts[i].MaxTokens = 0
		}
	}
	shuffle(set.Prompts, o.Seed)
	set.Source += fmt.Sprintf(", seed %d", o.Seed)
	return set, nil
}

// check enforces one source at a time and sane synthetic sizes.
func (o *Options) check() error {
	var given []string
	for _, s := range []struct {
		name string
		set  bool
	}{
		{"--prompt", o.PromptSet}, {"--prompt-file", o.PromptFile != ""},
		{"--dataset", o.Dataset != ""}, {"--input-tokens", o.InputTokens > 0},
	} {
		if s.set {
			given = append(given, s.name)
		}
	}
	switch {
	case len(given) > 1:
		return fmt.Errorf("%s are exclusive: give one prompt source", strings.Join(given, " and "))
	case o.Format != "" && o.Dataset == "":
		return errors.New("--dataset-format needs --dataset")
	case o.InputTokens < 0:
		return fmt.Errorf("invalid --input-tokens %d: want a positive token count", o.InputTokens)
	case o.InputTokens > MaxInputTokens || o.InputStddev > MaxInputTokens:
		return fmt.Errorf("invalid --input-tokens %d:%d: at most %d tokens, toksweep's bound", o.InputTokens, o.InputStddev, MaxInputTokens)
	case o.InputStddev != 0 && o.InputTokens == 0, o.SharedPrefixTokens != 0 && o.InputTokens == 0:
		return errors.New("--input-tokens N:STDDEV and --shared-prefix-tokens shape synthetic prompts: they need --input-tokens")
	case o.InputStddev < 0:
		return fmt.Errorf("invalid --input-tokens stddev %d: want ≥ 0", o.InputStddev)
	case o.SharedPrefixTokens < 0 || (o.InputTokens > 0 && o.SharedPrefixTokens > o.InputTokens-minOwnTokens):
		return fmt.Errorf("invalid --shared-prefix-tokens %d: want 0 to %d (at most --input-tokens minus %d, which the stamp and filler need)",
			o.SharedPrefixTokens, max(o.InputTokens-minOwnTokens, 0), minOwnTokens)
	}
	return nil
}

// fixed is the one-prompt set of --prompt, --prompt-file or the default.
func fixed(o Options) (*Set, error) {
	text, src := o.DefaultPrompt, "default prompt"
	switch {
	case o.PromptFile != "":
		b, err := readPromptFile(o.PromptFile)
		if err != nil {
			return nil, err
		}
		if strings.TrimSpace(string(b)) == "" {
			return nil, fmt.Errorf("--prompt-file %s is empty", o.PromptFile)
		}
		text, src = string(b), "--prompt-file "+o.PromptFile
	case o.PromptSet:
		if strings.TrimSpace(o.Prompt) == "" {
			return nil, errors.New("--prompt is empty")
		}
		text, src = o.Prompt, "--prompt"
	default:
		// The default prompt starts with a line of its own for the stamp,
		// so that no two requests share a prefix a cache could serve: a
		// fixed prompt repeated would measure the cache, not the server.
		// --prompt and --prompt-file are sent as given.
		slot := newStampSlot("")
		return &Set{Prompts: []client.Prompt{{ID: 0, Text: strings.Repeat("0", stampWidth) + "\n" + text}}, Source: src, Stamp: slot}, nil
	}
	return &Set{Prompts: []client.Prompt{{ID: 0, Text: text}}, Source: src}, nil
}

// readPromptFile reads --prompt-file through a limit, so that a device
// such as /dev/zero is refused after MaxPromptBytes, not read to its end.
func readPromptFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("cannot read --prompt-file: %w", err)
	}
	defer f.Close()
	b, ok, err := readBounded(f, MaxPromptBytes)
	switch {
	case err != nil:
		return nil, fmt.Errorf("cannot read --prompt-file: %w", err)
	case !ok:
		return nil, fmt.Errorf("--prompt-file %q is larger than %d MiB, toksweep's bound on a prompt", name, MaxPromptBytes>>20)
	}
	return b, nil
}

// loadDataset reads --dataset in its format.
func loadDataset(o Options) (*Set, error) {
	format := o.Format
	if format == "" {
		if !strings.EqualFold(filepath.Ext(o.Dataset), ".jsonl") {
			return nil, fmt.Errorf("cannot tell the format of --dataset %s: give --dataset-format %s or %s", o.Dataset, JSONL, ShareGPT)
		}
		format = JSONL
	}
	f, err := os.Open(o.Dataset)
	if err != nil {
		return nil, fmt.Errorf("cannot read --dataset: %w", err)
	}
	defer f.Close()
	r := &boundedReader{r: f, n: MaxDatasetBytes}
	set := &Set{}
	switch format {
	case JSONL:
		set.Prompts, err = ReadJSONL(r, o.Dataset)
	case ShareGPT:
		set.Prompts, set.Skipped, err = ReadShareGPT(r, o.Dataset)
	case OTel:
		return nil, fmt.Errorf("--dataset-format %s is traces of sessions: it needs --multi-turn", OTel)
	default:
		return nil, fmt.Errorf("invalid --dataset-format %q: want %s or %s", format, JSONL, ShareGPT)
	}
	if r.over { // whatever the cut made of the last line
		return nil, fmt.Errorf("--dataset %q is %v", o.Dataset, errTooLarge)
	}
	if err != nil {
		return nil, err
	}
	if len(set.Prompts) == 0 {
		return nil, fmt.Errorf("--dataset %s holds no usable request", o.Dataset)
	}
	set.Source = fmt.Sprintf("%s %s: %d prompts", format, o.Dataset, len(set.Prompts))
	if set.Skipped > 0 {
		set.Source += fmt.Sprintf(" (%d conversations skipped)", set.Skipped)
	}
	return set, nil
}

// shuffle permutes ps in place by seed.
func shuffle(ps []client.Prompt, seed int64) {
	rng := rand.New(rand.NewPCG(uint64(seed), orderStream))
	rng.Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
}

// PCG streams, so that the order and the text draw different numbers from
// the same seed.
const (
	orderStream  = 0x6f72646572 // "order"
	fillerStream = 0x66696c6c   // "fill"
)

// EstimateTokens is workload's token count for text: ceil(1.3 × the number
// of whitespace-separated words), at least 1 for non-blank text. It is a
// rule of thumb for English under BPE tokenizers, not a tokenizer: a real
// server's count differs by some percent.
func EstimateTokens(text string) int {
	w := tokcount.Words(text)
	if w == 0 {
		return 0
	}
	return tokcount.FromWords(w)
}

// wordsFor is the largest word count whose estimate is at most n tokens.
func wordsFor(n int) int {
	w := n * 10 / 13
	for tokcount.FromWords(w+1) <= n {
		w++
	}
	for w > 0 && tokcount.FromWords(w) > n {
		w--
	}
	return w
}
