package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/sim"
)

// options is a checked sweep command line.
type options struct {
	// Line is what the modes read of the command line: the per-level
	// counts, the SLO, the warnings and each mode's own settings.
	mode.Line

	URL            string
	Sim            bool
	SimPreset      string
	SimNoPrefix    bool // --sim-no-prefix-caching
	ReadingSpeed   float64
	Model          string
	DrainTimeout   time.Duration // after Duration, before in-flight requests are canceled
	MaxTokens      int
	Temperature    *float64
	Prompt         string
	PromptSource   string // the prompt set, described (workload.Set.Source)
	ExtraBody      map[string]any
	APIKey         string
	Headers        http.Header
	Out            string
	OutDefault     bool   // Out is the default, made unique when taken
	Overwrite      bool   // --overwrite: an earlier run in Out is replaced
	Charts         string // --charts: the chart files written (chart.ParseFormats)
	RequestTimeout time.Duration
	ConnectTimeout time.Duration
	Insecure       bool

	// streamed is the client's live token-chunk counter (internal/progress),
	// set by runSweep; nil outside a sweep.
	streamed *atomic.Int64

	Work workSettings // prompt set, output length and server metrics (workload.go)
	// simModel is --sim-model's model, read by startSim; nil without one.
	simModel *loadedModel
	// modeFlagSet is each mode's flags as bound (modeFlags), and
	// modeWarnings each mode's warnings until the mode is chosen (mode.go).
	modeFlagSet  map[string][]cli.Flag
	modeWarnings map[string][]string
	givenFlags   []string // the flags given, by name (cli.Context.FlagNames)
	// Percentiles are --percentiles' extra percentiles (percentiles.go).
	Percentiles []float64

	Shard shardOptions // --shard and its schedule (shard.go)

	check checkState    // what the checks before the sweep learned (preflight.go)
	Live  liveSettings  // --listen and the SLO exit status (live.go)
	Tier  tierSettings  // --slo-tier (tiers.go)
	Class classSettings // --class, --classes (classes.go)
	Twin  bool          // --twin: a fitted model steers the search (twin.go)

	Flags sweepFlagValues // the flags as given, bound by sweepFlags
}

// sweepFlagValues are the sweep flags that parseOptions turns into the
// checked fields of options (the others are bound to those fields
// directly), named after their flags. A ...Set field records that its flag
// was given, where an absent flag and its default differ.
type sweepFlagValues struct {
	API                string
	ExtraBody          string
	Header             []string
	Prompt             string
	PromptSet          bool
	PromptFile         string
	Dataset            string
	DatasetFormat      string
	InputTokens        string
	InputTokensSet     bool
	SharedPrefixTokens int
	IgnoreEOS          bool
	MinTokens          *int
	MetricsURL         string
	MetricsInterval    time.Duration
	MaxTokensSet       bool
	RequestsSet        bool
	DurationSet        bool
	SLODecodeTPS       *float64
	SLOE2ETPS          *float64
	SLOTTFTP95         *time.Duration
	SLOErrorRate       *float64
	SLOMaxGap          *time.Duration
	SLOTPOTP99         *time.Duration
	SLOE2EP95          *time.Duration
	SimPresetSet       bool
	Percentiles        string
	SimNoPrefixSet     bool
	SimModel           string // --sim-model: a model file from 'toksweep fit', set over the preset
	AllowExtrapolation bool   // --allow-extrapolation: run a --sim-model past its calibration, marked

	// SimAdapters are --sim-adapter's NAME[:COST] values.
	SimAdapters []string
	SimCliff    string // --sim-cliff TOKENS:FACTOR
}

// parseOptions checks every flag, as sweepFlags bound them into o, and
// returns a UsageError naming the first bad one and what it accepts.
func (o *options) parseOptions(args cli.Args) error {
	if args.Present() {
		return usagef("unexpected argument %q: sweep takes only flags, such as --levels 1,2,4 (see 'toksweep sweep --help')", args.First())
	}
	// The modes' checks run in two passes (mode.go): their level lists
	// before the prompt set is read, their cross-checks once it is.
	steps := []func() error{o.target, o.shard, o.counts, o.capacity, o.reading, o.exclusive, o.parseModes, o.openCap, o.prompt, o.body, o.outputLength, o.metrics, o.headers, o.checkModes, o.shardMode, o.percentiles, o.live, o.sloTiers, o.classes, o.twinCheck}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	if o.Out == "" {
		o.Out, o.OutDefault = "results/"+time.Now().Format("20060102-150405"), true
	}
	return nil
}

// target checks where the load goes.
func (o *options) target() error {
	switch {
	case o.Sim && o.URL != "":
		return usagef("--sim and --url are exclusive: --sim sweeps the built-in simulator")
	case !o.Sim && o.URL == "":
		return usagef("--url is required (e.g. --url http://127.0.0.1:8000/v1), or use --sim for the built-in simulator")
	}
	if err := checkSimOnly(o.Sim, o.Flags.simOnlyGiven()); err != nil {
		return err
	}
	if o.Sim {
		if _, err := sim.Preset(o.SimPreset); err != nil {
			return usagef("invalid --sim-preset %q: want one of %s", o.SimPreset, strings.Join(sim.PresetNames(), ", "))
		}
		if !o.Flags.MaxTokensSet {
			o.MaxTokens = defaultSimMaxTokens
		}
		if _, err := parseAdapters("sim-adapter", o.Flags.SimAdapters); err != nil {
			return err
		}
		if o.Flags.SimCliff != "" {
			if _, err := parseCliff("sim-cliff", o.Flags.SimCliff); err != nil {
				return err
			}
		}
	} else if err := checkURL(o.URL); err != nil {
		return err
	}
	switch api := client.API(o.Flags.API); api {
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
	path := strings.TrimRight(u.Path, "/")
	for _, ep := range []string{"/chat/completions", "/completions", "/models"} {
		if strings.HasSuffix(path, ep) {
			u.Path, u.RawPath = strings.TrimSuffix(path, ep), ""
			return usagef("--url %s names an endpoint: give the base URL, --url %s (toksweep adds %s itself)",
				redactURL(raw), redactURL(u.String()), ep)
		}
	}
	return nil
}

// redactURL is the URL as toksweep prints it: no userinfo, no query.
func redactURL(raw string) string { return client.RedactURL(raw) }

// counts checks the per-level sizes and timeouts.
func (o *options) counts() error {
	switch {
	case o.Flags.RequestsSet && o.Requests < 1:
		return usagef("invalid --requests %d: want an integer ≥ 1", o.Requests)
	case o.Flags.DurationSet && o.Duration <= 0:
		return usagef("invalid --duration %v: want a positive duration such as 90s or 5m", o.Duration)
	case o.DrainTimeout <= 0:
		return usagef("invalid --drain-timeout %v: want a positive duration such as 30s", o.DrainTimeout)
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
	if t := o.Temperature; t != nil && (!(*t >= 0) || math.IsInf(*t, 0)) { // NaN fails t >= 0
		return usagef("invalid --temperature %v: want a number ≥ 0", *t)
	}
	return nil
}

// body parses --extra-body. Numbers are kept as written (json.Number): a
// float64 would turn "seed": 9007199254740993 into 9007199254740992.
func (o *options) body() error {
	raw := o.Flags.ExtraBody
	if raw == "" {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	err := dec.Decode(&o.ExtraBody)
	if _, after := dec.Token(); err == nil && after != io.EOF { // text after the object
		err = errors.New("text after the object")
	}
	if err != nil || o.ExtraBody == nil {
		return usagef(`invalid --extra-body: want a JSON object such as '{"ignore_eos": true}'`)
	}
	for _, k := range slices.Sorted(maps.Keys(o.ExtraBody)) {
		if flag, owned := ownedBodyKeys[k]; owned {
			return usagef("--extra-body sets %q, which toksweep sends and records from %s: give that instead, so that summary.json and the report say what was sent", k, flag)
		}
	}
	return nil
}

// ownedBodyKeys are the request members toksweep sends from its own flags
// and records in summary.json: an --extra-body override would be sent while
// the run's record named the flag's value. "stream" is outputLength's.
var ownedBodyKeys = map[string]string{
	"model":          "--model",
	"messages":       "--prompt, --prompt-file or --dataset",
	"prompt":         "--prompt, --prompt-file or --dataset",
	"max_tokens":     "--max-tokens",
	"temperature":    "--temperature",
	"stream_options": "toksweep itself (include_usage gives the token counts)",
}

// jsonText renders a value from --extra-body as JSON: one line, strings
// quoted, numbers as written.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%q", fmt.Sprint(v))
	}
	return string(b)
}

// headers parses the repeated --header K:V flags. A name must be an HTTP
// token and a value may hold no control character but a tab (the rules
// net/http applies when sending, see client.ValidHeaderName): a header
// that could never be sent, or that would smuggle a second one, is the
// command line's mistake, found here rather than reported as a connection
// failure.
func (o *options) headers() error {
	o.Headers = http.Header{}
	for _, h := range o.Flags.Header {
		k, v, ok := strings.Cut(h, ":")
		k, v = strings.TrimSpace(k), strings.Trim(v, " \t")
		switch {
		case !ok || k == "":
			return usagef("invalid --header %q: want Name:Value", redactHeaderArg(h))
		case !client.ValidHeaderName(k):
			return usagef("invalid --header name %q: want letters, digits and !#$%%&'*+-.^_`|~ only, as in X-Request-Source:toksweep", headerNameShown(k))
		case !client.ValidHeaderValue(v):
			return usagef("invalid --header %q: the value holds a line break or another control character (one header per --header)", k+":…")
		}
		o.Headers.Add(k, v)
	}
	return nil
}

// headerNameShown is an invalid header name as an error quotes it: up to
// its first space, since what follows may be a credential typed without
// the colon ("Authorization Bearer sk-...:x").
func headerNameShown(k string) string {
	if i := strings.IndexAny(k, " \t"); i >= 0 {
		return k[:i] + "…"
	}
	return k
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
