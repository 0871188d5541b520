package preflight

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/internal/testkit/rawserver"
	"github.com/toksweep/toksweep/mode"
)

// Model takes the one model listed, with its context length; no model, or
// several, or a --url without its /v1, or no server, is an error that says
// what to give.
func TestModel(t *testing.T) {
	t.Parallel()
	many := make([]client.Model, 12)
	for i := range many {
		many[i] = client.Model{ID: fmt.Sprintf("m%d", i)}
	}
	for _, tc := range []struct {
		name   string
		models []client.Model
		path   string // appended to the server's root
		usage  bool   // a mode.UsageError
		want   string // the error's text, or the model's id
	}{
		{"one", []client.Model{{ID: "llama", MaxModelLen: 4096}}, "/v1", false, "llama"},
		{"none", nil, "/v1", false, "/v1/models lists no model; give --model"},
		{"many", many, "/v1", true, `the server serves 12 models; choose one with --model ("m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9", and 2 more)`},
		{"no /v1", []client.Model{{ID: "llama"}}, "", true, "/v1? "},
		{"id too long", []client.Model{{ID: strings.Repeat("x", 300)}}, "/v1", true, "is too long, not printable or holds a credential; give --model"},
	} {
		f := &fake{models: tc.models}
		url := f.start(t) + tc.path
		cfg := config(url, "", 0)
		id, n, err := Model(context.Background(), newClient(t, cfg), cfg)
		var ue *mode.UsageError
		switch {
		case tc.name == "one":
			if err != nil || id != "llama" || n != 4096 {
				t.Errorf("%s: %q, %d, %v; want llama, 4096", tc.name, id, n, err)
			}
		case err == nil || !strings.Contains(err.Error(), tc.want) || errors.As(err, &ue) != tc.usage:
			t.Errorf("%s: err %v (usage error: %v), want one holding %q (usage error: %v)", tc.name, err, ue != nil, tc.want, tc.usage)
		}
		if tc.name == "no /v1" && err != nil {
			if want := fmt.Sprintf("did you mean --url %s/v1? %s answers 404 but %s/v1/models answers; no load sent", url, url, url); err.Error() != want {
				t.Errorf("no /v1: %q, want %q", err, want)
			}
		}
	}
	cfg := config("http://"+rawserver.Closed(t)+"/v1", "", 0)
	_, _, err := Model(context.Background(), newClient(t, cfg), cfg)
	if err == nil || !strings.HasPrefix(err.Error(), "listing the server's models failed") && !strings.HasPrefix(err.Error(), "pre-flight check failed, no load sent: ") ||
		!strings.HasSuffix(err.Error(), "(is the server running, and are the host and port in --url right?)") {
		t.Errorf("no server: %v", err)
	}
}
