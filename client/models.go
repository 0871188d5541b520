package client

import (
	"context"
	"encoding/json"
	"io"
	"net/http"

	openai "github.com/sashabaranov/go-openai"
)

// maxModelsBody bounds what ListModels reads.
const maxModelsBody = 16 << 20

// Model is one entry of the server's model list.
type Model struct {
	ID string
	// MaxModelLen is the context length, in tokens, when the server says
	// (vLLM and llm-d report max_model_len; Ollama does not): 0 otherwise.
	MaxModelLen int
}

// ListModels asks the server for its models (GET {base}/models). Its errors
// are *RequestError.
func (c *Client) ListModels(ctx context.Context) ([]Model, error) {
	parent := ctx
	ctx, cancel := c.requestContext(parent)
	defer cancel()
	req, err := c.newRequest(ctx, http.MethodGet, c.modelsURL, nil)
	if err != nil {
		return nil, c.failure(Connect, 0, c.showModels, err.Error())
	}
	req.Header.Set("Accept", "application/json")
	// The list's connection is not put back in the pool: a server that
	// writes more than the list on it (a hostile one, or a broken proxy)
	// would have the next request, the pre-flight, read those bytes as its
	// own answer. One connection more per pre-flight is all it costs.
	req.Close = true
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, c.transportFailure(parent, ctx, err, c.showModels)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, c.httpFailure(resp, c.showModels)
	}
	defer resp.Body.Close()
	var list struct {
		Data []struct {
			openai.Model
			MaxModelLen int `json:"max_model_len"`
		} `json:"data"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxModelsBody)).Decode(&list); err != nil {
		return nil, c.failure(Malformed, resp.StatusCode, c.showModels, "the model list is not valid JSON: "+err.Error())
	}
	models := make([]Model, 0, len(list.Data))
	for _, m := range list.Data {
		models = append(models, Model{ID: m.ID, MaxModelLen: m.MaxModelLen})
	}
	return models, nil
}

// Bounds on model ids from the server, which toksweep does not trust.
const (
	maxShownModelID = 100 // bytes of an id quoted in a message
	maxModelID      = 256 // longest id used as --model (real ones are < 100)
)

// ShowModelID renders a model id from the server for a message: without
// credentials, on one line, at most 100 bytes.
func (c *Client) ShowModelID(id string) string { return oneLine(c.scrub(id), maxShownModelID) }

// UsableModelID reports whether a model id from the server may be sent and
// recorded as it is: at most 256 bytes, printable, and free of any
// credential the client sends.
func (c *Client) UsableModelID(id string) bool {
	return id != "" && len(id) <= maxModelID && oneLine(id, maxModelID) == id && c.scrub(id) == id
}
