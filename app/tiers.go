package app

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
	"sigs.k8s.io/yaml"

	"github.com/toksweep/toksweep/report"
)

// tierSettings is --slo-tier and --slo-tiers: the tiers as given, and as
// checked.
type tierSettings struct {
	Given []string // --slo-tier
	File  string   // --slo-tiers
	Tiers []report.Tier
}

// tierFlags are --slo-tier and --slo-tiers, bound into o.Tier.
func tierFlags(o *options) []cli.Flag {
	return []cli.Flag{&cli.StringSliceFlag{Name: "slo-tier", Action: func(_ *cli.Context, v []string) error { o.Tier.Given = v; return nil },
		Usage: "SLO tier NAME:BOUND[,BOUND...] judged at every level, each bound an --slo-* flag's name without slo- (decode, e2e for the rates) and its limit, e.g. interactive:decode>=100,ttft-p95<=2s (repeatable)"},
		&cli.StringFlag{Name: "slo-tiers", Destination: &o.Tier.File,
			Usage: `SLO tiers from a YAML or JSON FILE, a list such as [{"name": "interactive", "decode": 100, "ttft-p95": "2s"}], before the --slo-tier ones`},
	}
}

// tierBound is one bound a tier may give: its names (the --slo-* flag's
// without slo-, and a short one), the comparison it states, and where its
// limit goes.
type tierBound struct {
	bound, short, op string
	set              func(v *sloValues, s string) error
}

var tierBounds = []tierBound{
	{"decode-tps", "decode", ">=", floatInto(func(v *sloValues) **float64 { return &v.DecodeTPS })},
	{"e2e-tps", "e2e", ">=", floatInto(func(v *sloValues) **float64 { return &v.E2ETPS })},
	{"ttft-p95", "", "<=", durInto(func(v *sloValues) **time.Duration { return &v.TTFTP95 })},
	{"error-rate", "", "<=", floatInto(func(v *sloValues) **float64 { return &v.ErrorRate })},
	{"max-gap", "", "<=", durInto(func(v *sloValues) **time.Duration { return &v.MaxGap })},
	{"tpot-p99", "", "<=", durInto(func(v *sloValues) **time.Duration { return &v.TPOTP99 })},
	{"e2e-p95", "", "<=", durInto(func(v *sloValues) **time.Duration { return &v.E2EP95 })},
}

func floatInto(field func(*sloValues) **float64) func(*sloValues, string) error {
	return func(v *sloValues, s string) error {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("%q is not a number", s)
		}
		*field(v) = &f
		return nil
	}
}

func durInto(field func(*sloValues) **time.Duration) func(*sloValues, string) error {
	return func(v *sloValues, s string) error {
		d, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("%q is not a duration such as 2s", s)
		}
		*field(v) = &d
		return nil
	}
}

// parseTier parses one --slo-tier, NAME:BOUND[,BOUND...].
func parseTier(given string) (report.Tier, error) {
	where := fmt.Sprintf("--slo-tier %q", given)
	name, conds, ok := strings.Cut(given, ":")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return report.Tier{}, badTier(where, "want NAME:BOUND[,BOUND...], e.g. interactive:decode>=100,ttft-p95<=2s")
	}
	return tierOf(name, strings.Split(conds, ","), where)
}

// badTier is the usage error of the tier given where.
func badTier(where, format string, args ...any) error {
	return usagef("invalid %s: %s", where, fmt.Sprintf(format, args...))
}

// tierOf checks the tier name of bounds conds (each NAME>=X or NAME<=X),
// given where.
func tierOf(name string, conds []string, where string) (report.Tier, error) {
	if strings.TrimSpace(strings.Join(conds, "")) == "" {
		return report.Tier{}, badTier(where, "tier %s has no bound to judge: give at least one, e.g. %s:ttft-p95<=2s", name, name)
	}
	var v sloValues
	var seen []string
	for _, c := range conds {
		c = strings.TrimSpace(c)
		i := strings.IndexAny(c, "<>=")
		if i < 0 {
			return report.Tier{}, badTier(where, "bound %q has no comparison: want NAME>=X or NAME<=X", c)
		}
		key := strings.TrimSpace(c[:i])
		j := slices.IndexFunc(tierBounds, func(b tierBound) bool { return b.named(key) })
		if j < 0 {
			return report.Tier{}, badTier(where, "unknown bound %q: want one of %s", key, tierBoundNames())
		}
		b := tierBounds[j]
		limit, ok := strings.CutPrefix(c[i:], b.op)
		if !ok {
			return report.Tier{}, badTier(where, "%s takes %s, as --slo-%s does", key, b.op, b.bound)
		}
		if slices.Contains(seen, b.bound) {
			return report.Tier{}, badTier(where, "%s is given twice", key)
		}
		seen = append(seen, b.bound)
		if err := b.set(&v, strings.TrimSpace(limit)); err != nil {
			return report.Tier{}, badTier(where, "%s: %v", key, err)
		}
	}
	slo, err := v.slo(func(bound string) string { return where + ": " + bound })
	return report.Tier{Name: name, SLO: slo}, err
}

// readTierFile reads --slo-tiers FILE: a list of tiers in YAML or JSON
// (which is YAML), each {"name": NAME, BOUND: LIMIT, ...} with the bounds'
// names of --slo-tier and their limits as numbers or duration strings,
// e.g. [{"name": "interactive", "decode": 100, "ttft-p95": "2s"}], or in
// YAML "- name: interactive" with "decode: 100" and "ttft-p95: 2s" under it.
func readTierFile(file string) ([]report.Tier, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, usagef("--slo-tiers: %v", err)
	}
	var entries []map[string]json.RawMessage
	if b, err = yaml.YAMLToJSON(b); err == nil {
		err = json.Unmarshal(b, &entries)
	}
	if err != nil {
		return nil, usagef("invalid --slo-tiers %s: %v: want a list of tiers in YAML or JSON, such as [{\"name\": \"interactive\", \"decode\": 100, \"ttft-p95\": \"2s\"}]", file, oneLine(err.Error()))
	}
	var tiers []report.Tier
	for i, e := range entries {
		where := fmt.Sprintf("--slo-tiers %s, tier %d", file, i+1)
		var name string
		if json.Unmarshal(e["name"], &name) != nil || strings.TrimSpace(name) == "" {
			return nil, badTier(where, "want a \"name\" string")
		}
		var conds []string
		for _, b := range tierBounds { // in the bounds' order, so that every run names the same bad one first
			for _, key := range []string{b.bound, b.short} {
				raw, ok := e[key]
				if key == "" || !ok {
					continue
				}
				var limit string
				if json.Unmarshal(raw, &limit) != nil {
					limit = string(raw)
				}
				conds = append(conds, key+b.op+limit)
			}
		}
		for key := range e {
			if key != "name" && !slices.ContainsFunc(tierBounds, func(b tierBound) bool { return b.named(key) }) {
				return nil, badTier(where, "unknown bound %q: want one of %s", key, tierBoundNames())
			}
		}
		t, err := tierOf(strings.TrimSpace(name), conds, where)
		if err != nil {
			return nil, err
		}
		tiers = append(tiers, t)
	}
	return tiers, nil
}

// tierBoundNames lists the bounds a tier may give, with their comparisons.
func tierBoundNames() string {
	var names []string
	for _, b := range tierBounds {
		names = append(names, cmp.Or(b.short, b.bound)+b.op)
	}
	return strings.Join(names, ", ")
}

// named reports whether key names b.
func (b tierBound) named(key string) bool { return key == b.bound || (key == b.short && key != "") }

// sloTiers checks --slo-tiers and --slo-tier (the file's tiers first):
// each tier parses and no two share a name.
func (o *options) sloTiers() error {
	o.Tier.Tiers = nil
	if o.Tier.File != "" {
		tiers, err := readTierFile(o.Tier.File)
		if err != nil {
			return err
		}
		o.Tier.Tiers = tiers
	}
	for _, g := range o.Tier.Given {
		t, err := parseTier(g)
		if err != nil {
			return err
		}
		o.Tier.Tiers = append(o.Tier.Tiers, t)
	}
	for i, t := range o.Tier.Tiers {
		if slices.ContainsFunc(o.Tier.Tiers[:i], func(u report.Tier) bool { return u.Name == t.Name }) {
			return usagef("invalid --slo-tier: a tier named %s is given twice", t.Name)
		}
	}
	o.Line.Tiers = o.Tier.Tiers // an auto search finds every tier's boundary (mode.TierSearch)
	return nil
}
