package app

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sim"
	"github.com/toksweep/toksweep/sweep"
	"github.com/toksweep/toksweep/workload"
)

// classSettings are --class and --classes: the traffic classes as given,
// and as checked.
type classSettings struct {
	Given   []string // --class
	File    string   // --classes
	Classes []trafficClass
	// sets are the classes' own prompts (dataset=), one per class in
	// order, nil for a class that sends the run's; nil when none has any.
	sets []*workload.Set
}

// trafficClass is one checked traffic class.
type trafficClass struct {
	Name    string
	Share   float64 // normalised: the classes' shares sum to 1
	Model   string  // "": the run's --model
	Headers http.Header
	SLO     *report.SLO // nil: the run's --slo-* SLO
	Dataset string      // dataset=: the class's own prompts; "": the run's
}

const classSyntax = "NAME:share=W,model=M,header=K:V;K2:V2,slo=BOUND;BOUND,dataset=FILE"

// classFlags are --class and --classes, bound into o.Class.
func classFlags(o *options) []cli.Flag {
	return []cli.Flag{&cli.StringSliceFlag{Name: "class", Action: func(_ *cli.Context, v []string) error { o.Class.Given = v; return nil },
		Usage: "traffic class " + classSyntax + " (each key optional; repeatable, at most 16): each request is drawn into a class by its share (weights, normalised; 1 when not given), seeded by --seed, and sent with the class's model, extra headers and (dataset=, as --dataset reads it) prompts; slo= takes --slo-tier's bounds and replaces --slo-* for the class, e.g. interactive:share=0.7,header=x-priority:1,slo=ttft-p95<=2s"},
		&cli.StringFlag{Name: "classes", Destination: &o.Class.File,
			Usage: `traffic classes from a JSON FILE, before the --class ones: [{"name": "interactive", "share": 0.7, "model": "m", "headers": {"x-priority": "1"}, "slo": "ttft-p95<=2s,decode>=30", "dataset": "chat.jsonl"}]`},
	}
}

// classEntry is one class of --classes FILE.
type classEntry struct {
	Name    string            `json:"name"`
	Share   *float64          `json:"share"`
	Model   string            `json:"model"`
	Headers map[string]string `json:"headers"`
	SLO     string            `json:"slo"`     // --slo-tier's bounds, comma-separated
	Dataset string            `json:"dataset"` // the class's prompts, as --dataset reads them
}

// classes checks --classes and --class (the file's classes first): each
// class parses, no two share a name, there are at most sweep.MaxClasses,
// a model= can be sent, and sets the shares, normalised, and o.SLO's
// classes.
func (o *options) classes() error {
	var entries []classEntry
	if o.Class.File != "" {
		b, err := os.ReadFile(o.Class.File)
		if err != nil {
			return usagef("--classes: %v", err)
		}
		dec := json.NewDecoder(strings.NewReader(string(b)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&entries); err != nil {
			return usagef("invalid --classes %s: %v: want a JSON list such as [{\"name\": \"interactive\", \"share\": 0.7, \"slo\": \"ttft-p95<=2s\"}]", o.Class.File, err)
		}
	}
	for _, g := range o.Class.Given {
		e, err := parseClass(g)
		if err != nil {
			return err
		}
		entries = append(entries, e)
	}
	o.Class.Classes = nil
	if len(entries) == 0 {
		return nil
	}
	if len(entries) > sweep.MaxClasses {
		return usagef("invalid --class: %d classes, at most %d (every table and metric gets a row per class)", len(entries), sweep.MaxClasses)
	}
	var shares []float64
	for _, e := range entries {
		c, err := o.checkClass(e)
		if err != nil {
			return err
		}
		if err := o.simServes(c); err != nil {
			return err
		}
		if slices.ContainsFunc(o.Class.Classes, func(d trafficClass) bool { return d.Name == c.Name }) {
			return usagef("invalid --class: a class named %s is given twice", c.Name)
		}
		o.Class.Classes = append(o.Class.Classes, c)
		shares = append(shares, c.Share)
	}
	shares, _ = sweep.Normalise(shares) // each share checked positive
	base := o.SLO
	base.Classes = nil
	o.SLO.Classes = nil
	for i := range o.Class.Classes {
		c := &o.Class.Classes[i]
		c.Share = shares[i]
		slo := base
		if c.SLO != nil {
			slo = *c.SLO
		}
		o.SLO.Classes = append(o.SLO.Classes, report.ClassSLO{Name: c.Name, SLO: slo})
	}
	return o.classPrompts()
}

// classPrompts loads each class's dataset= as --dataset would load it,
// with the run's other workload flags. A mode that builds its own prompts
// (a session's turns, a trace's requests) is refused one.
func (o *options) classPrompts() error {
	o.Class.sets = nil
	for i, c := range o.Class.Classes {
		if c.Dataset == "" {
			continue
		}
		if _, owner := o.mode().(promptOwner); owner || o.mode().Name() == sweep.SessionsMode {
			return usagef("invalid --class %s: dataset= gives single requests' prompts; the %s mode builds its own (its turns or its trace's requests)", c.Name, o.mode().Name())
		}
		wo := o.Work.options
		wo.Prompt, wo.PromptSet, wo.PromptFile, wo.Dataset, wo.Format = "", false, "", c.Dataset, ""
		set, err := workload.Load(wo)
		if err != nil {
			return usagef("invalid --class %s: dataset=%s: %v", c.Name, c.Dataset, err)
		}
		if o.Class.sets == nil {
			o.Class.sets = make([]*workload.Set, len(o.Class.Classes))
		}
		o.Class.sets[i] = set
	}
	return nil
}

// allPrompts are the run's prompts and every class's own, for the checks
// before any load (the context length).
func (o *options) allPrompts() []client.Prompt {
	all := o.Work.Set.Prompts
	for _, set := range o.Class.sets {
		if set != nil {
			all = append(slices.Clip(all), set.Prompts...)
		}
	}
	return all
}

// simServes refuses, under --sim, a class whose model the simulator does
// not serve: its preset's model and the --sim-adapter names are all it
// serves (every request of the class would fail with a 404).
func (o *options) simServes(c trafficClass) error {
	if !o.Sim || c.Model == "" || o.Flags.SimModel != "" {
		return nil
	}
	cfg, err := sim.Preset(o.SimPreset)
	adapters, aerr := parseAdapters("sim-adapter", o.Flags.SimAdapters)
	if err != nil || aerr != nil || c.Model == cfg.Model || slices.ContainsFunc(adapters, func(a sim.Adapter) bool { return a.Name == c.Model }) {
		return nil // a bad preset or adapter is refused by its own flag's check
	}
	return usagef("invalid --class %s: model=%s is not served by --sim, which serves %s and the --sim-adapter names: add --sim-adapter %s", c.Name, c.Model, cfg.Model, c.Model)
}

// parseClass parses one --class, NAME:KEY=VALUE[,KEY=VALUE...].
func parseClass(given string) (classEntry, error) {
	where := fmt.Sprintf("--class %q", redactClassArg(given))
	name, rest, _ := strings.Cut(given, ":")
	e := classEntry{Name: strings.TrimSpace(name), Headers: map[string]string{}}
	var slos []string
	afterHeader := false
	for part := range strings.SplitSeq(rest, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		key, val, ok := strings.Cut(part, "=")
		key = strings.TrimSpace(key)
		switch {
		case !ok && afterHeader: // perhaps the rest of a header's value: not echoed
			return e, usagef("invalid %s: a part after header= is not KEY=VALUE (a comma in a header's value? give it in --classes FILE): want %s", where, classSyntax)
		case !ok:
			return e, usagef("invalid %s: %q is not KEY=VALUE: want %s", where, part, classSyntax)
		case key == "share":
			if e.Share != nil {
				return e, usagef("invalid %s: share is given twice", where)
			}
			f, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
			if err != nil {
				return e, usagef("invalid %s: share %q is not a number", where, val)
			}
			e.Share = &f
		case key == "model":
			e.Model = strings.TrimSpace(val)
		case key == "header":
			afterHeader = true
			for h := range strings.SplitSeq(val, ";") {
				k, v, ok := strings.Cut(h, ":")
				if !ok || strings.TrimSpace(k) == "" {
					return e, usagef("invalid %s: header %q: want K:V[;K2:V2]", where, redactHeaderArg(h))
				}
				e.Headers[strings.TrimSpace(k)] = strings.TrimSpace(v)
			}
		case key == "slo":
			slos = append(slos, strings.Split(val, ";")...)
		case key == "dataset":
			e.Dataset = strings.TrimSpace(val)
		default:
			return e, usagef("invalid %s: unknown key %q: want share, model, header, slo or dataset (%s)", where, key, classSyntax)
		}
	}
	e.SLO = strings.Join(slos, ",")
	return e, nil
}

// checkClass checks one class as given (by --class or --classes).
func (o *options) checkClass(e classEntry) (trafficClass, error) {
	where := "--class " + e.Name
	c := trafficClass{Name: e.Name, Share: 1, Model: e.Model, Dataset: e.Dataset}
	if e.Name == "" || strings.ContainsFunc(e.Name, func(r rune) bool {
		return !(r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) {
		return c, usagef("invalid --class %q: want a name of letters, digits, '-', '_' or '.', e.g. %s", e.Name, classSyntax)
	}
	if e.Share != nil {
		if s := *e.Share; !(s > 0) || math.IsInf(s, 0) {
			return c, usagef("invalid %s: share %v: want a positive weight, e.g. 0.7", where, s)
		}
		c.Share = *e.Share
	}
	for k, v := range e.Headers {
		switch {
		case !client.ValidHeaderName(k):
			return c, usagef("invalid %s: header name %q cannot be sent", where, k)
		case !client.ValidHeaderValue(v):
			return c, usagef("invalid %s: the value of header %s cannot be sent (a control character?)", where, k)
		}
		if c.Headers == nil {
			c.Headers = http.Header{}
		}
		c.Headers.Set(k, v)
	}
	if strings.TrimSpace(e.SLO) != "" {
		t, err := tierOf(e.Name, strings.Split(e.SLO, ","), where+" slo=")
		if err != nil {
			return c, err
		}
		c.SLO = &t.SLO
	}
	return c, nil
}

// redactClassArg hides the header values of a --class argument in a
// usage error, and any part after a header= that is not KEY=VALUE (the
// rest of a value with a comma): a credential there is not echoed.
func redactClassArg(s string) string {
	name, rest, ok := strings.Cut(s, ":")
	if !ok {
		return s
	}
	parts := strings.Split(rest, ",")
	afterHeader := false
	for i, p := range parts {
		k, v, ok := strings.Cut(p, "=")
		if !ok && afterHeader {
			parts[i] = "…"
		}
		if ok && strings.TrimSpace(k) == "header" {
			afterHeader = true
			var hs []string
			for h := range strings.SplitSeq(v, ";") {
				name, _, _ := strings.Cut(h, ":")
				hs = append(hs, name+":…")
			}
			parts[i] = k + "=" + strings.Join(hs, ";")
		}
	}
	return name + ":" + strings.Join(parts, ",")
}

// classDraw is the sweep's class draw; nil without classes.
func (o *options) classDraw() *sweep.Classes {
	if len(o.Class.Classes) == 0 {
		return nil
	}
	d := &sweep.Classes{Seed: o.Seed}
	for _, set := range o.Class.sets {
		var f func(int) client.Prompt
		if set != nil {
			f = set.Prompter()
		}
		d.Prompts = append(d.Prompts, f)
	}
	for _, c := range o.Class.Classes {
		d.Names, d.Shares = append(d.Names, c.Name), append(d.Shares, c.Share)
	}
	return d
}

// classVariants are the client's variants, one per class in order.
func (o *options) classVariants() []client.Variant {
	var vs []client.Variant
	for _, c := range o.Class.Classes {
		vs = append(vs, client.Variant{Model: c.Model, Headers: c.Headers})
	}
	return vs
}

// classNames are the classes' names; nil without classes.
func (o *options) classNames() []string {
	var names []string
	for _, c := range o.Class.Classes {
		names = append(names, c.Name)
	}
	return names
}

// classConfigs are the classes as summary.json's config records them,
// credential-like header values replaced (scrubConfig scrubs the rest).
func (o *options) classConfigs() []report.ClassConfig {
	var out []report.ClassConfig
	for _, c := range o.Class.Classes {
		cc := report.ClassConfig{Name: c.Name, Share: c.Share, Model: c.Model, Dataset: c.Dataset}
		if c.SLO != nil {
			cc.SLO = report.NewSLOConfig(*c.SLO)
		}
		for k := range c.Headers {
			if cc.Headers == nil {
				cc.Headers = map[string]string{}
			}
			v := c.Headers.Get(k)
			if client.SensitiveHeader(k) {
				v = "REDACTED"
			}
			cc.Headers[k] = v
		}
		out = append(out, cc)
	}
	return out
}
