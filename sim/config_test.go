package sim

import (
	"strings"
	"testing"
	"time"
)

func TestPromptTokens(t *testing.T) {
	tests := []struct {
		name string
		got  int
		want int
	}{
		{"empty is at least 1", PromptTokens(""), 1},
		{"one word", PromptTokens("hello"), 2},                           // ceil(1.3)
		{"ten words", PromptTokens("a b c d e f g h i j"), 13},           // exactly 13, no float error
		{"whitespace runs", PromptTokens("  a\tb\n\nc  "), 4},            // ceil(3.9)
		{"chat one message", ChatPromptTokens("hello"), 6},               // 2 + 4
		{"chat two messages", ChatPromptTokens("be brief", "hello"), 12}, // ceil(3×1.3)=4 + 2×4
		{"chat empty message", ChatPromptTokens(""), 4},                  // overhead only
		{"essay prompt", ChatPromptTokens(EssayPrompt), 36},              // ceil(24×1.3)=32 + 4
		{"essay prompt as completion", PromptTokens(EssayPrompt), 32},    // 24 words
		{"chat no messages is at least 1", ChatPromptTokens(), 1},        // not reachable over HTTP
		{"words", len(strings.Fields(EssayPrompt)), 24},                  // the comment in presets.go
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %d, want %d", tt.name, tt.got, tt.want)
		}
	}
}

func TestPresets(t *testing.T) {
	names := PresetNames()
	if len(names) != 3 || names[0] != "fast" || names[1] != "default" || names[2] != kimiPreset {
		t.Errorf("PresetNames() = %v", names)
	}
	for _, name := range names {
		cfg, err := Preset(name)
		if err != nil {
			t.Fatalf("Preset(%q): %v", name, err)
		}
		if !cfg.StampSendTime || PresetDoc(name) == "" {
			t.Errorf("preset %s: StampSendTime %v, doc %q", name, cfg.StampSendTime, PresetDoc(name))
		}
		s, err := New(cfg)
		if err != nil {
			t.Errorf("New(Preset(%q)): %v", name, err)
			continue
		}
		s.Close()
	}
	if _, err := Preset("nope"); err == nil {
		t.Error("Preset(nope) succeeded")
	}
	if PresetDoc("nope") != "" {
		t.Error("PresetDoc(nope) is not empty")
	}
}

func TestNewValidates(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Config)
		want   string // part of the error
	}{
		{"no max model len", func(c *Config) { c.MaxModelLen = 0 }, "MaxModelLen"},
		{"no slots", func(c *Config) { c.MaxNumSeqs = 0 }, "MaxNumSeqs"},
		{"no prefill", func(c *Config) { c.PrefillTokensPerSec = 0 }, "PrefillTokensPerSec"},
		{"free steps", func(c *Config) { c.DecodeBase, c.DecodePerSeq = 0, 0 }, "cannot be free"},
		{"negative ctx", func(c *Config) { c.DecodePerCtxToken = -time.Nanosecond }, "negative"},
		{"jitter", func(c *Config) { c.Jitter = 1 }, "Jitter"},
		{"scale", func(c *Config) { c.TimeScale = -1 }, "TimeScale"},
		{"reasoning field", func(c *Config) { c.ReasoningField = "thoughts" }, "ReasoningField"},
		{"reasoning share", func(c *Config) { c.ReasoningShare = 1.5 }, "ReasoningShare"},
		{"error rate", func(c *Config) { c.ErrorRate500 = -0.1 }, "ErrorRate500"},
		{"queue limit", func(c *Config) { c.QueueLimit429 = -1 }, "QueueLimit429"},
		{"chunk", func(c *Config) { c.TokensPerChunk = -1 }, "TokensPerChunk"},
		{"eos", func(c *Config) { c.EOSAfter = -1 }, "EOSAfter"},
	}
	for _, tt := range tests {
		cfg := testConfig()
		tt.change(&cfg)
		s, err := New(cfg)
		if err == nil {
			s.Close()
			t.Errorf("%s: New succeeded", tt.name)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %q does not mention %q", tt.name, err, tt.want)
		}
	}
	s, err := New(testConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if c := s.Config(); c.TokensPerChunk != 1 || c.TimeScale != 1 || c.ReasoningField != ReasoningContent ||
		c.KVCacheTokens != 8*256 {
		t.Errorf("defaults not filled: %+v", c)
	}
}
