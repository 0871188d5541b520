package client_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/sim"
)

// Record.PromptEstimate is the simulator's own count of the prompt sent
// (its usage.prompt_tokens at no scale), for every kind of prompt: a chat
// message or conversation, a completions text, a flattened conversation,
// token ids, odd whitespace and non-ASCII spaces; and 0 when --extra-body
// sets the prompt itself.
func TestPromptEstimateIsTheSimulatorsCount(t *testing.T) {
	cfg, err := sim.Preset("fast")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	conv := []client.Message{{Role: "system", Content: "be brief"}, {Role: "user", Content: " two\twords\u00a0and\u2003more \n"}}
	for _, tc := range []struct {
		name  string
		api   client.API
		extra map[string]any
		p     client.Prompt
	}{
		{"chat text", client.Chat, nil, client.Prompt{Text: strings.Repeat("lorem ipsum ", 37)}},
		{"chat conversation", client.Chat, nil, client.Prompt{Messages: conv}},
		{"empty chat", client.Chat, nil, client.Prompt{Text: "  "}},
		{"completions text", client.Completions, nil, client.Prompt{Text: "héllo wörld, three"}},
		{"completions conversation", client.Completions, nil, client.Prompt{Messages: conv}},
		{"token ids", client.Completions, nil, client.Prompt{TokenIDs: []int{3, 4, 5, 6, 7, 8, 9}}},
	} {
		c, err := client.New(client.Config{BaseURL: ts.URL + "/v1", Model: cfg.Model, API: tc.api, MaxTokens: 2, ExtraBody: tc.extra})
		if err != nil {
			t.Fatal(err)
		}
		rec := c.Do(context.Background(), tc.p)
		if !rec.OK() || rec.PromptTokens == 0 || rec.PromptEstimate != rec.PromptTokens {
			t.Errorf("%s: prompt_estimate %d, the simulator's prompt_tokens %d (%s %s)", tc.name, rec.PromptEstimate, rec.PromptTokens, rec.ErrorClass, rec.Error)
		}
	}
	c, err := client.New(client.Config{BaseURL: ts.URL + "/v1", Model: cfg.Model, MaxTokens: 2,
		ExtraBody: map[string]any{"messages": []map[string]string{{"role": "user", "content": "set by hand"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if rec := c.Do(context.Background(), client.Prompt{Text: "not sent"}); !rec.OK() || rec.PromptEstimate != 0 {
		t.Errorf("--extra-body's prompt: prompt_estimate %d (%s), want 0 (toksweep did not write it)", rec.PromptEstimate, rec.Error)
	}
}
