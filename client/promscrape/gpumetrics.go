package promscrape

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// GPUMetrics is the GPUs' telemetry over one level (--gpu-metrics-url):
// plain, JSON-safe data, per GPU, from which Totals computes the level's
// figures.
type GPUMetrics struct {
	Endpoints int    `json:"endpoints"`       // GPU hosts asked for
	Scrapes   int    `json:"scrapes"`         // successful in-level scrapes, over every endpoint
	Failures  int    `json:"failures"`        // failed scrapes, opening and closing included
	Error     string `json:"error,omitempty"` // the first failure
	// Unseen lists the endpoints of which no scrape of the level
	// succeeded: their GPUs are unknown, so no total can be given.
	Unseen []string `json:"unseen,omitempty"`
	GPUs   []GPU    `json:"gpus"`
}

// GPU is one GPU's account of a level. Its gauges are over the in-level
// scrapes; Energy and Span are between its endpoint's opening and closing
// scrapes.
type GPU struct {
	ID       string `json:"id"` // UUID
	Host     string `json:"host,omitempty"`
	Index    string `json:"gpu,omitempty"`
	Endpoint string `json:"endpoint"`

	Power   Gauge   `json:"power_w"`
	Util    Gauge   `json:"util_pct"`
	MemUsed Gauge   `json:"mem_used_mib"`
	MemMax  float64 `json:"mem_used_max_mib"` // the largest MemUsed sample; 0 without one

	Energy Increase      `json:"energy_mj"` // DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION's increase
	Span   time.Duration `json:"span_ns"`   // opening to closing scrape; 0 without both
}

// add adds one in-level reading to the gauges.
func (g *GPU) add(r *GPUReading) {
	g.Power.add(r.Power)
	g.Util.add(r.Util)
	g.MemUsed.add(r.MemUsed)
	if r.MemUsed.OK {
		g.MemMax = max(g.MemMax, r.MemUsed.V)
	}
}

// The ways a GPU's energy over a level is known.
const (
	EnergyCounter    = "counter"    // the increase of the energy counter
	EnergyPowerTime  = "power×time" // power mean × span, without the counter
	EnergyMixed      = "mixed"      // some GPUs one way, some the other
	noEnergy         = ""
	joulesPerMilliJ  = 1e-3
	maxReasonsListed = 3
)

// EnergyJ is the GPU's energy over the level, in joules, and how it is
// known: the counter's increase when the counter was read at both edges,
// else its power mean × Span; NaN and "" when neither can be had.
func (g *GPU) EnergyJ() (float64, string) {
	switch {
	case g.Energy.OK:
		return g.Energy.Delta * joulesPerMilliJ, EnergyCounter
	case g.Power.N > 0 && g.Span > 0:
		return g.Power.Mean() * g.Span.Seconds(), EnergyPowerTime
	}
	return math.NaN(), noEnergy
}

// GPUTotals are a level's GPU figures over all its GPUs. Each is NaN when
// any GPU (or any endpoint) lacks what it needs; Incomplete then says why.
type GPUTotals struct {
	GPUs      int
	UtilMean  float64 // mean over the GPUs of each one's mean utilisation, %
	MemMean   float64 // sum over the GPUs of each one's mean memory used, MiB
	MemMax    float64 // the largest memory-used sample of any one GPU, MiB
	PowerMean float64 // sum over the GPUs of each one's mean power, W
	EnergyJ   float64 // sum over the GPUs of EnergyJ
	// EnergySource is EnergyCounter, EnergyPowerTime or EnergyMixed; "" when
	// EnergyJ is NaN.
	EnergySource string
	Incomplete   string // why some totals are NaN; "" when none is
}

// Totals sums the GPUs' figures. A figure missing on one GPU leaves the
// total empty, never summed over the others: a partial sum would pass
// for the whole.
func (m *GPUMetrics) Totals() GPUTotals {
	t := GPUTotals{GPUs: len(m.GPUs)}
	var why []string
	for _, u := range m.Unseen {
		why = append(why, "no scrape of "+u+" succeeded")
	}
	if len(m.GPUs) == 0 && len(why) == 0 {
		why = append(why, "no GPU in the telemetry")
	}
	sum := func(f func(*GPU) (float64, bool), what string) float64 {
		total, missing := 0.0, 0
		for i := range m.GPUs {
			v, ok := f(&m.GPUs[i])
			if !ok {
				missing++
				continue
			}
			total += v
		}
		if missing > 0 {
			why = append(why, fmt.Sprintf("%d of %d GPUs without %s", missing, len(m.GPUs), what))
		}
		if missing > 0 || len(m.Unseen) > 0 || len(m.GPUs) == 0 {
			return math.NaN()
		}
		return total
	}
	gauge := func(g Gauge) (float64, bool) { return g.Mean(), g.N > 0 }
	t.PowerMean = sum(func(g *GPU) (float64, bool) { return gauge(g.Power) }, "a power reading")
	t.UtilMean = sum(func(g *GPU) (float64, bool) { return gauge(g.Util) }, "a utilisation reading") / float64(len(m.GPUs))
	t.MemMean = sum(func(g *GPU) (float64, bool) { return gauge(g.MemUsed) }, "a memory reading")
	t.MemMax = math.NaN()
	if !math.IsNaN(t.MemMean) {
		t.MemMax = 0
		for i := range m.GPUs {
			t.MemMax = max(t.MemMax, m.GPUs[i].MemMax)
		}
	}
	sources := map[string]bool{}
	t.EnergyJ = sum(func(g *GPU) (float64, bool) {
		j, src := g.EnergyJ()
		sources[src] = true
		return j, src != noEnergy
	}, "an energy counter or power readings at both edges")
	if !math.IsNaN(t.EnergyJ) {
		t.EnergySource = EnergyMixed
		if len(sources) == 1 {
			for s := range sources {
				t.EnergySource = s
			}
		}
	}
	if len(why) > maxReasonsListed {
		why = append(why[:maxReasonsListed], fmt.Sprintf("%d more", len(why)-maxReasonsListed))
	}
	t.Incomplete = strings.Join(why, "; ")
	return t
}
