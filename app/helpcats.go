package app

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// The sweep flags' categories in --help, the README's tasks. A mode's
// flags take its own (commandMode.Category); every other flag's is in
// commonCategory. cli lists the categories by name.
const (
	catTarget    = "target"
	catTransport = "auth, transport"
	catLoad      = "load shape"
	catOpen      = "open loop"
	catWorkload  = "workload"
	catSLO       = "SLO"
	catOutputs   = "outputs"
	catMetrics   = "the server's metrics"
	catShards    = "many machines"
	catLive      = "live"
)

// commonCategory is the category of each sweep flag that is no mode's.
var commonCategory = map[string]string{
	"url": catTarget, "sim": catTarget, "sim-preset": catTarget, "sim-no-prefix-caching": catTarget, "sim-model": catTarget, "sim-adapter": catTarget, "sim-cliff": catTarget, "allow-extrapolation": catTarget, "model": catTarget, "api": catTarget,
	"api-key": catTransport, "header": catTransport, "insecure": catTransport, "connect-timeout": catTransport, "request-timeout": catTransport,
	"requests": catLoad, "duration": catLoad, "drain-timeout": catLoad, "warmup": catLoad, "repeat": catLoad,
	"max-concurrency": catOpen,
	"max-tokens":      catWorkload, "temperature": catWorkload, "prompt": catWorkload, "prompt-file": catWorkload, "extra-body": catWorkload,
	"dataset": catWorkload, "dataset-format": catWorkload, "input-tokens": catWorkload, "shared-prefix-tokens": catWorkload,
	"seed": catWorkload, "ignore-eos": catWorkload, "min-tokens": catWorkload,
	"slo-decode-tps": catSLO, "slo-e2e-tps": catSLO, "slo-ttft-p95": catSLO, "slo-error-rate": catSLO, "slo-max-gap": catSLO,
	"slo-tpot-p99": catSLO, "slo-e2e-p95": catSLO, "slo-tier": catSLO, "slo-tiers": catSLO, "class": catWorkload, "classes": catWorkload,
	"out": catOutputs, "overwrite": catOutputs, "charts": catOutputs, "percentiles": catOutputs, "reading-speed": catOutputs,
	"metrics-url": catMetrics, "metrics-interval": catMetrics, "gpu-metrics-url": catMetrics,
	"shard": catShards, "shard-from-env": catShards, "start-at": catShards, "level-duration": catShards, "max-start-wait": catShards, "grace": catShards,
	"listen": catLive, "fail-on-slo": catSLO, "abort-on-slo-fail": catSLO, "twin": catSLO,
}

// categorize gives each flag of flags the category cat, or, with cat
// empty, its commonCategory; a flag with none panics (a test runs every
// sweep flag through here).
func categorize(flags []cli.Flag, cat string) []cli.Flag {
	for _, f := range flags {
		c := cat
		if c == "" {
			c = commonCategory[f.Names()[0]]
		}
		if c == "" {
			panic(fmt.Sprintf("app: --%s has no help category (app/helpcats.go)", f.Names()[0]))
		}
		setCategory(f, c)
	}
	return flags
}

// setCategory sets the Category field that each of cli's flag types has.
func setCategory(f cli.Flag, cat string) {
	v := reflect.ValueOf(unnamed(f))
	if v.Kind() == reflect.Pointer {
		if field := v.Elem().FieldByName("Category"); field.IsValid() && field.Kind() == reflect.String {
			field.SetString(cat)
			return
		}
	}
	panic(fmt.Sprintf("app: --%s (%T) takes no category", f.Names()[0], f))
}

// categoryOrder is the categories' order in sweep --help: the README's.
// A category not listed (a mode's own) comes after them.
var categoryOrder = []string{catTarget, catTransport, catLoad, catOpen, "trace replay", catWorkload, "sessions", catSLO, catOutputs, catMetrics, catShards, catLive}

// helpTemplate is a command's --help with its flags by category, in
// categoryOrder, each category's in the order flags lists them (cli's own
// template lists the categories and their flags by name).
func helpTemplate(flags []cli.Flag) string {
	byCat := map[string][]cli.Flag{}
	var cats []string
	for _, f := range flags {
		cf, ok := f.(cli.CategorizableFlag)
		if !ok || !cf.IsVisible() {
			continue
		}
		c := cf.GetCategory()
		if byCat[c] == nil {
			cats = append(cats, c)
		}
		byCat[c] = append(byCat[c], f)
	}
	order := slices.Clone(categoryOrder)
	for _, c := range cats {
		if !slices.Contains(order, c) {
			order = append(order, c)
		}
	}
	var b strings.Builder
	for _, c := range order {
		if len(byCat[c]) == 0 {
			continue
		}
		fmt.Fprintf(&b, "   %s\n\n", c)
		for _, f := range byCat[c] {
			fmt.Fprintf(&b, "   %s\n", f)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "   %s\n", cli.HelpFlag)
	// The flags' text is literal, not template.
	return "NAME:\n   {{template \"helpNameTemplate\" .}}\n\nUSAGE:\n   {{template \"usageTemplate\" .}}\n\nOPTIONS:\n" +
		strings.ReplaceAll(b.String(), "{{", `{{"{{"}}`)
}
