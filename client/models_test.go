package client

import (
	"context"
	"errors"
	"reflect"
	"testing"
)

// TestListModels reads the /models answers of llm-d (with max_model_len)
// and Ollama (tagged names, no context length).
func TestListModels(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file string
		want []Model
	}{
		{"llmd-models.json", []Model{{ID: "demo-model", MaxModelLen: 1024}}},
		{"ollama-models.json", []Model{{ID: "tiny:latest"}}},
	}
	for _, tt := range tests {
		srv := newServer(t, respond(200, string(readFile(t, transcriptsDir, tt.file))))
		c := newClient(t, srv.URL, Config{APIKey: "k"})
		got, err := c.ListModels(context.Background())
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %+v %v, want %+v", tt.file, got, err, tt.want)
		}
		if _, h := srv.last(); srv.lastPath() != "/v1/models" || h.Get("Authorization") != "Bearer k" {
			t.Errorf("%s: GET %s with %v", tt.file, srv.lastPath(), h)
		}
	}

	srv := newServer(t, respond(401, `{"error":{"message":"no key","code":401}}`))
	_, err := newClient(t, srv.URL, Config{}).ListModels(context.Background())
	want := "HTTP 401 from " + srv.URL + "/v1/models: no key (check --api-key / OPENAI_API_KEY)"
	var re *RequestError
	if !errors.As(err, &re) || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}
