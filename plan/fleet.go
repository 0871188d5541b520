package plan

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/rundir"
	"github.com/toksweep/toksweep/sweep"
)

// Config is one server configuration to choose among (a tensor-parallel
// size, a max-num-seqs): a finished run of it and the GPUs one replica of
// it takes.
type Config struct {
	Path   string // the run directory, as given
	SLO    string // the run's SLO in words, "" without one
	Stats  []report.LevelStats
	Levels []sweep.Level
	GPUs   float64 // G of this configuration, > 0
}

// ConfigOf is the configuration that run measured, at gpus GPUs per replica.
func ConfigOf(run rundir.SavedRun, gpus float64) Config {
	c := Config{Path: run.Path, Stats: run.Stats(), Levels: run.Levels, GPUs: gpus}
	if run.Summary.Recommendation != nil {
		c.SLO = run.Summary.Recommendation.SLO
	}
	return c
}

// Candidate is a configuration's plan for the peak, or why it has none.
type Candidate struct {
	Run  string
	GPUs float64 // per replica
	// Plan is the configuration's fleet plan; nil when Excluded says
	// why it cannot serve the peak within the SLO.
	Plan     *Plan
	Excluded string
	// GPUsTotal = replicas × G and USDPerHour = GPUsTotal × P, the fleet's
	// GPUs and hourly price at the peak (Plan.Replicas, no spare).
	GPUsTotal, USDPerHour float64
}

// Choice is the plan over several configurations: each candidate, the
// cheapest one that serves the peak within the SLO, and the Pareto front
// of every level of every run.
type Choice struct {
	Options    Options // GPUsPerReplica is each candidate's own
	SLO        string
	Candidates []Candidate
	Chosen     int // index of the cheapest candidate
	Points     []Point
}

// ErrMixedSLO is the error when the runs were judged by different SLOs, so
// that "meets the SLO" means a different thing for each; the command exits 2.
var ErrMixedSLO = errors.New("the runs were judged by different SLOs")

// Choose plans each configuration for the peak (o.PeakRPS, o.Headroom,
// priced at o.GPUHourUSD per GPU-hour with each configuration's GPUs) and
// picks the cheapest fleet, replicas × G × P dollars per hour. A tie goes
// to the configuration given first. A configuration that cannot be
// planned on (no level met the SLO, a count it cannot give) is excluded
// with its reason; none left is ErrCannotAnswer.
func Choose(cs []Config, o Options) (Choice, error) {
	if len(cs) == 0 {
		return Choice{}, errors.New("no configuration to choose among")
	}
	if !(o.GPUHourUSD > 0) || math.IsInf(o.GPUHourUSD, 0) {
		return Choice{}, fmt.Errorf("choosing among configurations needs --gpu-hour-usd, the price of one GPU-hour")
	}
	ch := Choice{Options: o, SLO: cs[0].SLO, Chosen: -1}
	for _, c := range cs {
		if c.SLO != ch.SLO {
			return Choice{}, fmt.Errorf("%w (%s: %q, %s: %q): compare configurations under one SLO", ErrMixedSLO, cs[0].Path, ch.SLO, c.Path, c.SLO)
		}
		co := o
		co.GPUsPerReplica = c.GPUs
		if err := co.Check(); err != nil {
			return Choice{}, fmt.Errorf("%s: %w", c.Path, err)
		}
		cand := Candidate{Run: c.Path, GPUs: c.GPUs}
		p, err := fromParts(c.Path, c.SLO, c.Stats, c.Levels, co)
		if err != nil {
			cand.Excluded = err.Error()
		} else {
			cand.Plan = &p
			cand.GPUsTotal = float64(p.Replicas) * c.GPUs
			cand.USDPerHour = cand.GPUsTotal * o.GPUHourUSD
			if ch.Chosen < 0 || cand.USDPerHour < ch.Candidates[ch.Chosen].USDPerHour {
				ch.Chosen = len(ch.Candidates)
			}
		}
		ch.Candidates = append(ch.Candidates, cand)
		ch.Points = append(ch.Points, points(c)...)
	}
	markFront(ch.Points)
	if ch.Chosen < 0 {
		var why []string
		for _, c := range ch.Candidates {
			why = append(why, c.Run+": "+c.Excluded)
		}
		return Choice{}, fmt.Errorf("%w: no configuration serves the peak within the SLO (%s)", ErrCannotAnswer, strings.Join(why, "; "))
	}
	best := ch.Candidates[ch.Chosen]
	for i := range ch.Points {
		pt := &ch.Points[i]
		pt.Chosen = pt.Run == best.Run && pt.Level == best.Plan.Level.Key
	}
	return ch, nil
}

// Best is the chosen candidate.
func (ch Choice) Best() Candidate { return ch.Candidates[ch.Chosen] }

// why says why candidate c loses to the chosen one, "" for the chosen.
func (ch Choice) why(i int) string {
	c, best := ch.Candidates[i], ch.Best()
	switch {
	case i == ch.Chosen:
		return ""
	case c.Plan == nil:
		return "it cannot serve the peak within the SLO: " + c.Excluded
	case c.USDPerHour == best.USDPerHour:
		return fmt.Sprintf("$%.2f/h, the same price; the tie goes to the configuration given first", c.USDPerHour)
	}
	return fmt.Sprintf("$%.2f/h, $%.2f/h (%.1f%%) more: %s against %s",
		c.USDPerHour, c.USDPerHour-best.USDPerHour, 100*(c.USDPerHour/best.USDPerHour-1), gpus(c.GPUsTotal), gpus(best.GPUsTotal))
}

// name is a candidate's name in sentences: its run directory.
func (c Candidate) name() string { return cmp.Or(c.Run, "(unnamed run)") }
