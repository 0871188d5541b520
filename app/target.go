package app

import (
	"net/http"
	"strings"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/report"
)

func (o *options) clientConfig() client.Config {
	return client.Config{
		BaseURL: o.URL, APIKey: o.APIKey, Headers: o.Headers, Model: o.Model, API: o.API,
		MaxTokens: o.MaxTokens, Temperature: o.Temperature, ExtraBody: o.ExtraBody,
		RequestTimeout: o.RequestTimeout, ConnectTimeout: o.ConnectTimeout, Insecure: o.Insecure,
		MaxConns: o.maxConns(), Streamed: o.streamed, Variants: o.classVariants(),
	}
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
		SLO: report.NewSLOConfig(o.SLO), SLOTiers: report.NewTierConfigs(o.Tier.Tiers), ReadingSpeed: o.readingConfig(),
		Classes: o.classConfigs(),
	}
	if o.Work.MetricsURL != "" {
		r.MetricsURL = redactURL(o.Work.MetricsURL)
	}
	for _, u := range o.Work.GPUURLs {
		r.GPUMetricsURLs = append(r.GPUMetricsURLs, redactURL(u))
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
