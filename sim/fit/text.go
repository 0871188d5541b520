package fit

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
)

// WriteText writes the fit as a person reads it: what was fitted, each
// parameter with its interval, each level's residual, and a sentence for
// each parameter the data could not identify.
func (m Model) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Fitted %d decode steps and %d first tokens on an idle server, from %d levels (%d read on the server's send stamps).\n",
		m.Steps, m.IdleFirst, len(m.Levels), m.Stamped)
	fmt.Fprintf(&b, "Intervals: %s.\n\n", m.Interval)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "parameter\tvalue\t80% interval\tmeaning")
	for _, p := range m.Params {
		iv := "not identified"
		switch {
		case p.Counted != "":
			iv = p.Counted
		case p.Lo != nil:
			iv = fmtValue(p.Unit, *p.Lo) + " – " + fmtValue(p.Unit, *p.Hi)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", p.Name, fmtValue(p.Unit, p.Value), iv, p.Doc)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(&b, "\nResidual per level (its mean decode step, measured and fitted; rms over blocks of %d steps):\n", blockSteps)
	tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "level\tsteps\tmeasured\tfitted\tbias\trms\t")
	for _, r := range m.Levels {
		if math.IsNaN(r.MeasuredNs) {
			fmt.Fprintf(tw, "%s\t%d\t-\t-\t-\t-\t\n", r.Level, r.Steps)
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%+.1f%%\t%.1f%%\t\n", r.Level, r.Steps, fmtNs(r.MeasuredNs), fmtNs(r.FittedNs), 100*r.Bias, 100*r.RMS)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if poor := m.PoorFit(); len(poor) > 0 {
		fmt.Fprintf(&b, "\nPoor fit: the step model cannot represent the server at these levels (missed by over %.0f%%; a --sim-model run of it is refused, --allow-extrapolation runs it, marked):\n", 100*PoorBias)
		for _, p := range poor {
			fmt.Fprintf(&b, "- %s.\n", p)
		}
	}
	if len(m.NotIdentified) > 0 {
		b.WriteString("\nNot identified:\n")
		for _, n := range m.NotIdentified {
			fmt.Fprintf(&b, "- %s.\n", n)
		}
	}
	if c := m.Calibration; c != nil {
		_, reach := c.Reach()
		fmt.Fprintf(&b, "\nCalibrated on up to %s in flight (C=%d), %s req/s, prompts up to %d tokens, outputs of %d–%d: a --sim-model run beyond %s that load, or %d× those lengths, is refused (--allow-extrapolation runs it, marked).\n",
			trim(c.MaxInflight), c.MaxConcurrency, trim(math.Max(c.MaxRate, c.MaxRequestsPS)), c.MaxPrompt, c.MinOutput, c.MaxOutput, reach, LengthFactor)
		for _, r := range c.IllConditioned {
			fmt.Fprintf(&b, "- ill-conditioned: %s.\n", r)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func fmtValue(unit string, v float64) string {
	switch {
	case unit == "seqs":
		return strconv.Itoa(int(v))
	case unit == "×":
		return strconv.FormatFloat(v, 'f', 3, 64) + "×"
	case strings.HasPrefix(unit, "ns/"):
		return fmtNs(v) + "/" + strings.TrimPrefix(unit, "ns/")
	default:
		return fmtNs(v)
	}
}

// fmtNs prints a duration in nanoseconds with three significant digits,
// in the unit that keeps it below 1000.
func fmtNs(v float64) string {
	a := math.Abs(v)
	if a == 0 {
		return "0"
	}
	units := []struct {
		scale float64
		name  string
	}{{1, "ns"}, {1e3, "µs"}, {1e6, "ms"}, {1e9, "s"}}
	u := units[len(units)-1]
	for _, c := range units {
		if a/c.scale < 999.5 {
			u = c
			break
		}
	}
	x, _ := strconv.ParseFloat(strconv.FormatFloat(v/u.scale, 'g', 3, 64), 64) // rounded first: 0.9996 is 1.00
	decimals := max(0, 2-int(math.Floor(math.Log10(math.Abs(x)))))
	return strconv.FormatFloat(x, 'f', decimals, 64) + u.name
}
