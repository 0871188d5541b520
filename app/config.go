package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sim"
)

// options is a checked sweep command line.
type options struct {
	URL            string
	Sim            bool
	SimPreset      string
	Model          string
	API            client.API
	Levels         []int
	Requests       int
	Duration       time.Duration
	DrainTimeout   time.Duration // after Duration, before in-flight requests are canceled
	Warmup         int
	Repeat         int
	MaxTokens      int
	Temperature    *float64
	Prompt         string
	PromptSource   string // the prompt set, described (workload.Set.Source)
	ExtraBody      map[string]any
	APIKey         string
	Headers        http.Header
	Out            string
	RequestTimeout time.Duration
	ConnectTimeout time.Duration
	Insecure       bool
	Warnings       []string // non-fatal remarks about the flags, printed before the run

	// Capacity planning (capacity.go).
	Auto            bool // --levels auto: adaptive search instead of Levels
	AutoMax         int
	AutoGranularity int
	SLO             report.SLO

	Work workSettings // prompt set, output length and server metrics (workload.go)
	Open rateSettings // open loop: --rates and its flags (rates.go)
}

// parseOptions checks every flag and returns a UsageError naming the first
// bad one and what it accepts.
func parseOptions(c *cli.Context) (*options, error) {
	o := &options{
		URL: c.String("url"), Sim: c.Bool("sim"), SimPreset: c.String("sim-preset"),
		Model: c.String("model"), Requests: c.Int("requests"), Duration: c.Duration("duration"),
		Warmup: c.Int("warmup"), Repeat: c.Int("repeat"), MaxTokens: c.Int("max-tokens"),
		APIKey: c.String("api-key"), Out: c.String("out"), Insecure: c.Bool("insecure"),
		RequestTimeout: c.Duration("request-timeout"), ConnectTimeout: c.Duration("connect-timeout"),
	}
	if c.Args().Present() {
		return nil, usagef("unexpected argument %q: sweep takes only flags, such as --levels 1,2,4 (see 'toksweep sweep --help')", c.Args().First())
	}
	steps := []func(*cli.Context) error{o.target, o.counts, o.capacity, o.levels, o.prompt, o.body, o.outputLength, o.metrics, o.headers, o.rates}
	for _, step := range steps {
		if err := step(c); err != nil {
			return nil, err
		}
	}
	if o.Out == "" {
		o.Out = "results/" + time.Now().Format("20060102-150405")
	}
	return o, nil
}

// target checks where the load goes.
func (o *options) target(c *cli.Context) error {
	switch {
	case o.Sim && o.URL != "":
		return usagef("--sim and --url are exclusive: --sim sweeps the built-in simulator")
	case !o.Sim && o.URL == "":
		return usagef("--url is required (e.g. --url http://127.0.0.1:8000/v1), or use --sim for the built-in simulator")
	}
	if o.Sim {
		if _, err := sim.Preset(o.SimPreset); err != nil {
			return usagef("invalid --sim-preset %q: want one of %s", o.SimPreset, strings.Join(sim.PresetNames(), ", "))
		}
		if !c.IsSet("max-tokens") {
			o.MaxTokens = defaultSimMaxTokens
		}
	} else if err := checkURL(o.URL); err != nil {
		return err
	}
	switch api := client.API(c.String("api")); api {
	case client.Chat, client.Completions:
		o.API = api
	default:
		return usagef("invalid --api %q: want chat or completions", api)
	}
	return nil
}

func checkURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return usagef("invalid --url %q: want http(s)://HOST:PORT/v1", redactURL(raw))
	}
	return nil
}

// redactURL is the URL as toksweep prints it: no userinfo, no query.
func redactURL(raw string) string { return client.RedactURL(raw) }

// counts checks the per-level sizes and timeouts.
func (o *options) counts(c *cli.Context) error {
	o.DrainTimeout = c.Duration("drain-timeout")
	switch {
	case c.IsSet("requests") && o.Requests < 1:
		return usagef("invalid --requests %d: want an integer ≥ 1", o.Requests)
	case c.IsSet("duration") && o.Duration <= 0:
		return usagef("invalid --duration %v: want a positive duration such as 90s or 5m", o.Duration)
	case c.Duration("drain-timeout") <= 0:
		return usagef("invalid --drain-timeout %v: want a positive duration such as 30s", c.Duration("drain-timeout"))
	case o.Warmup < 0:
		return usagef("invalid --warmup %d: want an integer ≥ 0", o.Warmup)
	case o.Repeat < 1:
		return usagef("invalid --repeat %d: want an integer ≥ 1", o.Repeat)
	case o.MaxTokens < 1:
		return usagef("invalid --max-tokens %d: want an integer ≥ 1", o.MaxTokens)
	case o.RequestTimeout <= 0:
		return usagef("invalid --request-timeout %v: want a positive duration such as 10m", o.RequestTimeout)
	case o.ConnectTimeout <= 0:
		return usagef("invalid --connect-timeout %v: want a positive duration such as 10s", o.ConnectTimeout)
	}
	if c.IsSet("temperature") {
		t := c.Float64("temperature")
		if !(t >= 0) || math.IsInf(t, 0) { // NaN fails t >= 0
			return usagef("invalid --temperature %v: want a number ≥ 0", t)
		}
		o.Temperature = &t
	}
	return nil
}

// levels parses --levels. Unsorted or repeated levels are sorted and
// de-duplicated with a warning.
func (o *options) levels(c *cli.Context) error {
	raw := c.String("levels")
	if strings.TrimSpace(raw) == "auto" {
		o.Auto = true
		o.Levels = []int{o.AutoMax} // the highest level the search may reach
		return nil
	}
	var levels []int
	for _, f := range strings.Split(raw, ",") {
		f = strings.TrimSpace(f)
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 || n > maxLevel {
			return usagef("invalid --levels %q: %s (want integers from 1 to %d, e.g. 1,2,4,8, or auto)", raw, badLevel(f), maxLevel)
		}
		levels = append(levels, n)
	}
	sorted := slices.Compact(slices.Sorted(slices.Values(levels)))
	if !slices.Equal(sorted, levels) {
		o.Warnings = append(o.Warnings, fmt.Sprintf("--levels %q sorted and de-duplicated to %s", raw, joinInts(sorted)))
	}
	o.Levels = sorted
	if o.Requests > 0 && o.Requests < sorted[len(sorted)-1] {
		o.Warnings = append(o.Warnings, fmt.Sprintf("--requests %d is below some levels; each level runs at least one measured request per worker (C)", o.Requests))
	}
	return nil
}

// maxLevel bounds a concurrency level: each worker holds a goroutine, a
// connection and its buffers, and a mistyped 10000000 must be a usage error,
// not an out-of-memory crash.
const maxLevel = 100000

// badLevel says what is wrong with one --levels entry.
func badLevel(f string) string {
	if f == "" {
		return "an empty entry"
	}
	if n, err := strconv.Atoi(f); err == nil && n > maxLevel || errors.Is(err, strconv.ErrRange) && f[0] != '-' {
		return fmt.Sprintf("%s is too high", f)
	}
	return fmt.Sprintf("%q is not a positive integer", f)
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

// body parses --extra-body.
func (o *options) body(c *cli.Context) error {
	raw := c.String("extra-body")
	if raw == "" {
		return nil
	}
	if err := json.Unmarshal([]byte(raw), &o.ExtraBody); err != nil || o.ExtraBody == nil {
		return usagef(`invalid --extra-body: want a JSON object such as '{"ignore_eos": true}'`)
	}
	return nil
}

// headers parses the repeated --header K:V flags.
func (o *options) headers(c *cli.Context) error {
	o.Headers = http.Header{}
	for _, h := range c.StringSlice("header") {
		k, v, ok := strings.Cut(h, ":")
		k = strings.TrimSpace(k)
		if !ok || k == "" || strings.ContainsAny(k, " \t") {
			return usagef("invalid --header %q: want Name:Value", redactHeaderArg(h))
		}
		o.Headers.Add(k, strings.TrimSpace(v))
	}
	return nil
}

// redactHeaderArg hides the value part of a malformed --header argument,
// which may be a credential.
func redactHeaderArg(h string) string {
	if k, _, ok := strings.Cut(h, ":"); ok {
		return k + ":…"
	}
	if len(h) > 8 {
		return h[:4] + "…"
	}
	return h
}
