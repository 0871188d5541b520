package app

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/report"
)

// preflightTimeout bounds the checks made before any load is sent, beyond
// the connect timeout: a server that accepts connections but never answers
// must not hold the run (the pre-flight request's own, shorter bound is
// preflightWait).
const preflightTimeout = 60 * time.Second

func (o *options) clientConfig() client.Config {
	return client.Config{
		BaseURL: o.URL, APIKey: o.APIKey, Headers: o.Headers, Model: o.Model, API: o.API,
		MaxTokens: o.MaxTokens, Temperature: o.Temperature, ExtraBody: o.ExtraBody,
		RequestTimeout: o.RequestTimeout, ConnectTimeout: o.ConnectTimeout, Insecure: o.Insecure,
		MaxConns: o.maxConns(), Streamed: o.streamed,
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
		if hint := missingV1(ctx, o, err); hint != nil {
			return hint
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
		o.Model, o.check.contextLen = models[0].ID, models[0].MaxModelLen
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

// runConfig is the sweep configuration as written to summary.json: no
// API key, and credential-like header values replaced.
func (o *options) runConfig() *report.RunConfig {
	r := &report.RunConfig{
		URL: redactURL(o.URL), Sim: o.Sim, Model: o.Model, API: o.API,
		Requests: o.Requests, Warmup: o.Warmup, Repeat: o.Repeat, MaxTokens: o.MaxTokens,
		Temperature: o.Temperature, PromptSource: o.PromptSource, ExtraBody: o.ExtraBody,
		APIKeySet: o.APIKey != "", RequestTimeout: o.RequestTimeout.String(),
		ConnectTimeout: o.ConnectTimeout.String(), Insecure: o.Insecure,
		SLO: report.NewSLOConfig(o.SLO), ReadingSpeed: o.readingConfig(),
	}
	m := o.mode()
	r.Mode = m.Name()
	if o.Sim {
		r.SimPreset = o.SimPreset
	}
	m.Record(&o.Line, r)
	r.Percentiles = o.Percentiles
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
	o.scrubConfig(r) // a secret given twice, say as --api-key and in --extra-body
	return r
}
