package preflight

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/client"
)

// fake is a scripted OpenAI-compatible server: /v1/models lists models
// (each with its context length), and each chat completion answers with
// reply, or with a short stream of usage promptTokens when reply is nil.
type fake struct {
	models       []client.Model
	promptTokens int
	reply        func(w http.ResponseWriter)
}

func (f *fake) start(t *testing.T) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
		var ids []string
		for _, m := range f.models {
			ids = append(ids, fmt.Sprintf(`{"id":%q,"object":"model","max_model_len":%d}`, m.ID, m.MaxModelLen))
		}
		fmt.Fprintf(w, `{"object":"list","data":[%s]}`, strings.Join(ids, ","))
	})
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		if f.reply != nil {
			f.reply(w)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		const pre = `{"id":"x","object":"chat.completion.chunk","model":"m","choices":[{"index":0,`
		for range 3 {
			fmt.Fprintf(w, "data: %s\"delta\":{\"content\":\"t \"},\"finish_reason\":null}]}\n\n", pre)
		}
		fmt.Fprintf(w, "data: %s\"delta\":{},\"finish_reason\":\"length\"}]}\n\n", pre)
		fmt.Fprintf(w, "data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[],\"usage\":{\"prompt_tokens\":%d,\"completion_tokens\":3}}\n\ndata: [DONE]\n\n", f.promptTokens)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// status answers a chat completion with an HTTP status and a JSON error.
func status(code int, msg string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		fmt.Fprintf(w, `{"error":{"message":%q,"code":%d}}`, msg, code)
	}
}

// config is a client's for url, as the sweep command builds it.
func config(url, model string, maxTokens int) client.Config {
	return client.Config{BaseURL: url, Model: model, MaxTokens: maxTokens, ConnectTimeout: 5 * time.Second, RequestTimeout: 30 * time.Second}
}

func newClient(t *testing.T, cfg client.Config) *client.Client {
	t.Helper()
	cl, err := client.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cl
}
