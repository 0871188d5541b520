package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/report"
)

// preflightTimeout bounds the checks made before any load is sent, beyond
// the connect timeout: a server that accepts connections but never answers
// must not hold the run.
const preflightTimeout = 60 * time.Second

func (o *options) clientConfig() client.Config {
	return client.Config{
		BaseURL: o.URL, APIKey: o.APIKey, Headers: o.Headers, Model: o.Model, API: o.API,
		MaxTokens: o.MaxTokens, Temperature: o.Temperature, ExtraBody: o.ExtraBody,
		RequestTimeout: o.RequestTimeout, ConnectTimeout: o.ConnectTimeout, Insecure: o.Insecure,
		MaxConns: o.maxConns(),
	}
}

// resolveModel fills in --model from /v1/models when it was not given. It
// is also the first contact with the server, so an unreachable URL or a
// rejected key fails here, before any load.
func resolveModel(ctx context.Context, cl *client.Client, o *options) error {
	if o.Model != "" {
		return nil
	}
	limit := o.ConnectTimeout + preflightTimeout
	lctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	models, err := cl.ListModels(lctx)
	if err != nil {
		if ctx.Err() == nil && lctx.Err() != nil { // our limit, not Ctrl-C: the client calls it canceled
			err = fmt.Errorf("no answer from %s/models within %s", redactURL(o.URL), limit)
		}
		return checkFailed(err, true)
	}
	switch len(models) {
	case 0:
		return fmt.Errorf("%s/models lists no model; give --model", redactURL(o.URL))
	case 1:
		if !cl.UsableModelID(models[0].ID) {
			return usagef("the server's only model id (%q) is too long, not printable or holds a credential; give --model", cl.ShowModelID(models[0].ID))
		}
		o.Model = models[0].ID
		return nil
	}
	return usagef("the server serves %d models; choose one with --model (%s)", len(models), modelList(cl, models))
}

// maxListedModels bounds how many of the server's model ids a message
// quotes: the list is the server's, and may be huge or hostile.
const maxListedModels = 10

// modelList quotes the first maxListedModels ids, each as ShowModelID
// renders it (scrubbed, one line, bounded), and counts the rest.
func modelList(cl *client.Client, models []client.Model) string {
	ids := make([]string, 0, maxListedModels+1)
	for _, m := range models[:min(len(models), maxListedModels)] {
		ids = append(ids, strconv.Quote(cl.ShowModelID(m.ID)))
	}
	if n := len(models) - maxListedModels; n > 0 {
		ids = append(ids, fmt.Sprintf("and %d more", n))
	}
	return strings.Join(ids, ", ")
}

// preflight sends one real request and stops it at the first token, so a
// wrong key, an unknown model or a prompt that does not fit fails in
// seconds with the server's own reason.
func preflight(ctx context.Context, cl *client.Client, o *options, p client.Prompt, stderr io.Writer) error {
	limit := o.ConnectTimeout + preflightTimeout
	pctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	err := cl.Probe(pctx, p)
	if transient(err) {
		// The server is busy or failing now: that is what a sweep measures
		// and counts, not a mistake in the command line.
		fmt.Fprintf(stderr, "toksweep: warning: the pre-flight request failed (%v); sweeping anyway, failures are counted per class\n", err)
		return nil
	}
	if err != nil {
		if ctx.Err() == nil && pctx.Err() != nil { // our limit, not Ctrl-C: the client calls it canceled
			err = fmt.Errorf("no first event from %s within %s", redactURL(o.URL), limit)
		}
		return checkFailed(err, false)
	}
	return nil
}

// transient reports whether a pre-flight failure is the server's momentary
// state (5xx, 429, an error event) rather than a wrong URL, key, model or
// prompt.
func transient(err error) bool {
	var re *client.RequestError
	if !errors.As(err, &re) {
		return false
	}
	switch re.Class {
	case client.HTTP5xx, client.HTTP429, client.StreamError:
		return true
	}
	return false
}

// redactedConfig is the sweep configuration as written to summary.json:
// no API key, and credential-like header values replaced.
type redactedConfig struct {
	URL            string            `json:"url"`
	Sim            bool              `json:"sim,omitempty"`
	SimPreset      string            `json:"sim_preset,omitempty"`
	Model          string            `json:"model"`
	API            client.API        `json:"api"`
	Levels         []int             `json:"levels"`
	LevelsAuto     bool              `json:"levels_auto,omitempty"` // Levels then holds --auto-max
	SLO            *sloConfig        `json:"slo,omitempty"`
	Requests       int               `json:"requests"`
	Duration       string            `json:"duration,omitempty"`
	Warmup         int               `json:"warmup"`
	Repeat         int               `json:"repeat"`
	MaxTokens      int               `json:"max_tokens"`
	Temperature    *float64          `json:"temperature"`
	PromptSource   string            `json:"prompt_source"`
	ExtraBody      map[string]any    `json:"extra_body,omitempty"`
	APIKeySet      bool              `json:"api_key_set"`
	Headers        map[string]string `json:"headers,omitempty"`
	RequestTimeout string            `json:"request_timeout"`
	ConnectTimeout string            `json:"connect_timeout"`
	Insecure       bool              `json:"insecure"`
	OpenLoop       *rateConfig       `json:"open_loop,omitempty"`
}

func (o *options) redacted() redactedConfig {
	r := redactedConfig{
		URL: redactURL(o.URL), Sim: o.Sim, Model: o.Model, API: o.API, Levels: o.Levels,
		Requests: o.Requests, Warmup: o.Warmup, Repeat: o.Repeat, MaxTokens: o.MaxTokens,
		Temperature: o.Temperature, PromptSource: o.PromptSource, ExtraBody: o.ExtraBody,
		APIKeySet: o.APIKey != "", RequestTimeout: o.RequestTimeout.String(),
		ConnectTimeout: o.ConnectTimeout.String(), Insecure: o.Insecure,
	}
	if o.Sim {
		r.SimPreset = o.SimPreset
	}
	r.LevelsAuto = o.Auto
	r.OpenLoop = o.Open.config()
	if o.SLO.Set() {
		r.SLO = newSLOConfig(o.SLO)
	}
	if o.Duration > 0 {
		r.Duration = o.Duration.String()
	}
	if len(o.Headers) > 0 {
		r.Headers = map[string]string{}
		for k, vs := range o.Headers {
			v := strings.Join(vs, ", ")
			if client.SensitiveHeader(k) {
				v = "REDACTED"
			}
			r.Headers[http.CanonicalHeaderKey(k)] = v
		}
	}
	o.scrubConfig(&r) // a secret given twice, say as --api-key and in --extra-body
	return r
}

// sloConfig is the SLO as summary.json records it, so that a saved run can
// be judged again (toksweep report draws the SLO line from it).
type sloConfig struct {
	DecodeTPS float64  `json:"decode_tps,omitempty"`
	E2ETPS    float64  `json:"e2e_tps,omitempty"`
	TTFTP95Ms float64  `json:"ttft_p95_ms,omitempty"`
	ErrorRate *float64 `json:"error_rate,omitempty"`
}

func newSLOConfig(o report.SLO) *sloConfig {
	c := &sloConfig{DecodeTPS: o.DecodeTPS, E2ETPS: o.E2ETPS, TTFTP95Ms: float64(o.TTFTP95) / float64(time.Millisecond)}
	if o.ErrorRate >= 0 {
		c.ErrorRate = &o.ErrorRate
	}
	return c
}

// savedSLO reads the SLO back from a saved summary.json config; ok is false
// when the run had none.
func savedSLO(config any) (slo report.SLO, ok bool) {
	raw, isRaw := config.(json.RawMessage)
	var c struct {
		SLO *sloConfig `json:"slo"`
	}
	if !isRaw || json.Unmarshal(raw, &c) != nil || c.SLO == nil {
		return report.SLO{ErrorRate: -1}, false
	}
	slo = report.SLO{DecodeTPS: c.SLO.DecodeTPS, E2ETPS: c.SLO.E2ETPS,
		TTFTP95: time.Duration(c.SLO.TTFTP95Ms * float64(time.Millisecond)), ErrorRate: -1}
	if c.SLO.ErrorRate != nil {
		slo.ErrorRate = *c.SLO.ErrorRate
	}
	return slo, true
}
