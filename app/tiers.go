package app

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/toksweep/toksweep/report"
)

// tierSettings is --slo-tier: the tiers as given, and as checked.
type tierSettings struct {
	Given []string
	Tiers []report.Tier
}

// tierFlag is --slo-tier, bound into o.Tier.Given.
func tierFlag(o *options) cli.Flag {
	return &cli.StringSliceFlag{Name: "slo-tier", Action: func(_ *cli.Context, v []string) error { o.Tier.Given = v; return nil },
		Usage: "SLO tier NAME:BOUND[,BOUND...] judged at every level, each bound an --slo-* flag's name without slo- (decode, e2e for the rates) and its limit, e.g. interactive:decode>=100,ttft-p95<=2s (repeatable)"}
}

// sloValues are an SLO's bounds as given, by the --slo-* flags or by one
// tier's bounds; nil is not given.
type sloValues struct {
	DecodeTPS, E2ETPS, ErrorRate     *float64
	TTFTP95, MaxGap, TPOTP99, E2EP95 *time.Duration
}

// slo checks v and makes its SLO; name names a bound, by its --slo-*
// flag's name without slo-, in the usage error.
func (v sloValues) slo(name func(bound string) string) (report.SLO, error) {
	switch {
	case v.DecodeTPS != nil && !(*v.DecodeTPS > 0):
		return report.SLO{}, usagef("invalid %s %v: want a positive rate", name("decode-tps"), *v.DecodeTPS)
	case v.E2ETPS != nil && !(*v.E2ETPS > 0):
		return report.SLO{}, usagef("invalid %s %v: want a positive rate", name("e2e-tps"), *v.E2ETPS)
	case v.TTFTP95 != nil && *v.TTFTP95 <= 0:
		return report.SLO{}, usagef("invalid %s %v: want a positive duration such as 2s", name("ttft-p95"), *v.TTFTP95)
	case v.ErrorRate != nil && !(*v.ErrorRate >= 0 && *v.ErrorRate <= 1):
		return report.SLO{}, usagef("invalid %s %v: want a share between 0 and 1, e.g. 0.01", name("error-rate"), *v.ErrorRate)
	case v.MaxGap != nil && *v.MaxGap <= 0:
		return report.SLO{}, usagef("invalid %s %v: want a positive duration such as 1s", name("max-gap"), *v.MaxGap)
	case v.TPOTP99 != nil && *v.TPOTP99 <= 0:
		return report.SLO{}, usagef("invalid %s %v: want a positive duration such as 50ms", name("tpot-p99"), *v.TPOTP99)
	case v.E2EP95 != nil && *v.E2EP95 <= 0:
		return report.SLO{}, usagef("invalid %s %v: want a positive duration such as 30s", name("e2e-p95"), *v.E2EP95)
	}
	return report.SLO{DecodeTPS: deref(v.DecodeTPS), E2ETPS: deref(v.E2ETPS), TTFTP95: deref(v.TTFTP95), ErrorRate: v.ErrorRate,
		MaxGapP95: deref(v.MaxGap), TPOTP99: deref(v.TPOTP99), E2EP95: deref(v.E2EP95)}, nil
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
	bad := func(format string, args ...any) error {
		return usagef("invalid --slo-tier %q: %s", given, fmt.Sprintf(format, args...))
	}
	name, conds, ok := strings.Cut(given, ":")
	name = strings.TrimSpace(name)
	switch {
	case !ok || name == "":
		return report.Tier{}, bad("want NAME:BOUND[,BOUND...], e.g. interactive:decode>=100,ttft-p95<=2s")
	case strings.TrimSpace(conds) == "":
		return report.Tier{}, bad("tier %s has no bound to judge: give at least one, e.g. %s:ttft-p95<=2s", name, name)
	}
	var v sloValues
	var seen []string
	for _, c := range strings.Split(conds, ",") {
		c = strings.TrimSpace(c)
		i := strings.IndexAny(c, "<>=")
		if i < 0 {
			return report.Tier{}, bad("bound %q has no comparison: want NAME>=X or NAME<=X", c)
		}
		key := c[:i]
		j := slices.IndexFunc(tierBounds, func(b tierBound) bool { return key == b.bound || (key == b.short && key != "") })
		if j < 0 {
			return report.Tier{}, bad("unknown bound %q: want one of %s", key, tierBoundNames())
		}
		b := tierBounds[j]
		limit, ok := strings.CutPrefix(c[i:], b.op)
		if !ok {
			return report.Tier{}, bad("%s takes %s, as --slo-%s does", key, b.op, b.bound)
		}
		if slices.Contains(seen, b.bound) {
			return report.Tier{}, bad("%s is given twice", key)
		}
		seen = append(seen, b.bound)
		if err := b.set(&v, strings.TrimSpace(limit)); err != nil {
			return report.Tier{}, bad("%s: %v", key, err)
		}
	}
	slo, err := v.slo(func(bound string) string { return fmt.Sprintf("--slo-tier %q: %s", given, bound) })
	return report.Tier{Name: name, SLO: slo}, err
}

// tierBoundNames lists the bounds a tier may give, with their comparisons.
func tierBoundNames() string {
	var names []string
	for _, b := range tierBounds {
		names = append(names, cmpOrName(b)+b.op)
	}
	return strings.Join(names, ", ")
}

func cmpOrName(b tierBound) string {
	if b.short != "" {
		return b.short
	}
	return b.bound
}

// sloTiers checks --slo-tier: each tier parses, no two share a name, and
// the levels are given (an auto search follows the single --slo-* SLO).
func (o *options) sloTiers() error {
	o.Tier.Tiers = nil
	for _, g := range o.Tier.Given {
		t, err := parseTier(g)
		if err != nil {
			return err
		}
		if slices.ContainsFunc(o.Tier.Tiers, func(u report.Tier) bool { return u.Name == t.Name }) {
			return usagef("invalid --slo-tier %q: a tier named %s is given twice", g, t.Name)
		}
		o.Tier.Tiers = append(o.Tier.Tiers, t)
	}
	if len(o.Tier.Tiers) > 0 && o.searched() {
		return usagef("--slo-tier judges given levels; an auto search (--levels auto, --rates auto) follows the single --slo-* SLO: give the levels, e.g. --levels 1,2,4,8,16")
	}
	return nil
}
