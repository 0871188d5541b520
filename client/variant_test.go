package client

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// A prompt's Variant sends its model and headers (after the Config's,
// replacing one of the same name); Variant 0 sends the Config's own; a
// credential in a variant's header is scrubbed from what the client
// writes, as one in Headers is.
func TestVariants(t *testing.T) {
	t.Parallel()
	const token = "tok-variant-SECRET-42"
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		respond(http.StatusBadRequest, `{"error":{"message":"bad auth `+r.Header.Get("X-Tenant-Auth")+`"}}`)(w, r)
	})
	c := newClient(t, srv.URL, Config{Model: "base", Headers: http.Header{"X-Priority": {"9"}},
		Variants: []Variant{{Model: "lora-a", Headers: http.Header{"x-priority": {"1"}, "X-Tenant-Auth": {"Bearer " + token}}}, {}}})
	for _, tt := range []struct {
		variant         int
		model, priority string
	}{{0, "base", "9"}, {1, "lora-a", "1"}, {2, "base", "9"}, {7, "base", "9"}} {
		rec := c.Do(context.Background(), Prompt{Text: "hi", MaxTokens: 1, Variant: tt.variant})
		body, h := srv.last()
		var sent struct{ Model string }
		if err := json.Unmarshal(body, &sent); err != nil {
			t.Fatal(err)
		}
		if sent.Model != tt.model || h.Get("X-Priority") != tt.priority || len(h.Values("X-Priority")) != 1 {
			t.Errorf("variant %d sent model %q, X-Priority %q, want %q and %q", tt.variant, sent.Model, h.Values("X-Priority"), tt.model, tt.priority)
		}
		if strings.Contains(rec.Error, token) || (tt.variant == 1 && !strings.Contains(rec.Error, "[REDACTED]")) {
			t.Errorf("variant %d: error %q, want the echoed credential redacted", tt.variant, rec.Error)
		}
	}
	red := c.cfg.Redacted()
	if got := red.Variants[0].Headers.Get("X-Tenant-Auth"); got != "[REDACTED]" {
		t.Errorf("Redacted keeps a variant's credential header as %q", got)
	}
	if _, err := New(Config{BaseURL: srv.URL, Variants: []Variant{{Headers: http.Header{"X A": {"v"}}}}}); err == nil {
		t.Error("New took a variant header net/http cannot send")
	}
}
