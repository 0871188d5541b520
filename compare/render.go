package compare

import (
	"cmp"
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
)

// CSVHeader is the header of compare.csv, in column order. There is one row
// per compared run, level and figure (Metrics order):
//
//	baseline        name of the baseline run A
//	run             name of the compared run B
//	label           B's letter (B, C, …)
//	mode            the level's mode: closed, rate, sessions, replay, …
//	level           the level's name: C=2, rate=2/s, rate=2/s C≤4, speed=2×
//	concurrency     its C: a closed loop's workers or sessions, an open
//	                loop's cap; empty for an open loop without one
//	rate            an open loop's load: the offered rate (req/s), a trace
//	                replay's speed (×); empty in a closed loop
//	metric          decode_tps_p50, ttft_p50_ms, ttft_p95_ms or aggregate_output_tps
//	baseline_value  the figure in A (tok/s or ms, 3 decimals)
//	value           the figure in B
//	ratio           B/A, 4 decimals
//	ci_low          lower bound of the confidence interval of B/A; empty without one
//	ci_high         upper bound
//	significant     true when the interval excludes 1; empty without one
//	meaningful      true when significant and |B/A − 1| ≥ the minimum effect; empty without an interval
//	baseline_n      samples behind A: requests, or repetitions for the aggregate
//	n               samples behind B
//	baseline_repeats  repetitions of the level in A that have the figure
//	repeats         repetitions in B
//	interval        what the interval accounts for: "repeats" (between runs),
//	                "requests" (within one run a side); empty without one
//	verdict         the plain-words verdict; empty without an interval
//
// Undefined figures are empty cells.
var CSVHeader = []string{
	"baseline", "run", "label", "mode", "level", "concurrency", "rate", "metric",
	"baseline_value", "value", "ratio", "ci_low", "ci_high", "significant", "meaningful",
	"baseline_n", "n", "baseline_repeats", "repeats", "interval", "verdict",
}

// WriteCSV writes the table as compare.csv.
func (t Table) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader); err != nil {
		return err
	}
	for _, c := range t.Comparisons {
		for _, l := range c.Levels {
			for _, e := range l.Estimates {
				sig, meaningful := "", ""
				if e.HasCI() {
					sig, meaningful = strconv.FormatBool(e.Significant()), strconv.FormatBool(e.Meaningful())
				}
				row := slices.Concat([]string{c.Baseline, c.Run, c.Label}, keyCells(l.Key), []string{
					string(e.Metric),
					fixed(e.A, 3), fixed(e.B, 3), fixed(e.Ratio, 4), fixed(e.Low, 4), fixed(e.High, 4), sig, meaningful,
					strconv.Itoa(e.NA), strconv.Itoa(e.NB), strconv.Itoa(e.RA), strconv.Itoa(e.RB),
					string(e.Interval), e.Verdict(c.Label, t.Confidence),
				})
				if err := cw.Write(row); err != nil {
					return err
				}
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// keyCells are a level's mode, level, concurrency and rate cells, each
// empty where it does not apply (CSVHeader).
func keyCells(k sweep.LevelKey) []string {
	c, r := "", ""
	if !k.Unbounded() {
		c = strconv.Itoa(k.Concurrency)
	}
	if k.IsOpen() {
		r = strconv.FormatFloat(k.Load, 'f', -1, 64)
	}
	return []string{k.Mode, k.Name(), c, r}
}

// WriteText writes the human comparison: the runs, how the intervals were
// made, then per compared run the levels it shares with A, a headline table
// with verdicts, a table of the other figures, and a one-line summary.
func (t Table) WriteText(w io.Writer) error {
	var b strings.Builder
	for i, name := range t.Runs {
		fmt.Fprintf(&b, "%s = %s\n", Label(i), name)
	}
	t.method(&b)
	for _, c := range t.Comparisons {
		fmt.Fprintf(&b, "\n%s vs A: compared %s (only in A: %s; only in %s: %s)\n",
			c.Label, names(c.Compared), names(c.OnlyBaseline), c.Label, names(c.OnlyRun))
		if note := c.modesNote(); note != "" {
			fmt.Fprintf(&b, "%s vs A: %s\n", c.Label, note)
		}
		if len(c.Levels) == 0 {
			continue
		}
		t.headline(&b, c)
		t.others(&b, c)
		b.WriteString("\n" + c.Overall() + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// method says how the intervals were made and what they leave out, for the
// kinds of interval the table uses.
func (t Table) method(b *strings.Builder) {
	conf := strconv.FormatFloat(100*t.Confidence, 'f', -1, 64) + "%"
	used := map[Interval]bool{}
	for _, c := range t.Comparisons {
		for _, l := range c.Levels {
			for _, e := range l.Estimates {
				used[e.Interval] = true
			}
		}
	}
	if used[Repeats] {
		fmt.Fprintf(b, "Levels repeated on both sides (--repeat ≥ 2): %s t-interval over each repetition's own figure, so run-to-run noise is included.\n", conf)
	}
	if used[Requests] {
		fmt.Fprintf(b, "Levels run once on a side: %s block bootstrap of the successful requests in start order (%d resamples), medians only.\n"+
			"  It measures request-to-request noise only: run-to-run noise was not measured (sweep both sides with --repeat ≥ 2 to measure it).\n",
			conf, t.Resamples)
	}
	if t.MinEffect > 0 {
		fmt.Fprintf(b, "A significant difference under %s (--min-effect) is called no meaningful difference.\n", floor(t.MinEffect))
	}
}

// headline is the table of the per-stream decode rate, with verdicts.
func (t Table) headline(b *strings.Builder, c Comparison) {
	fmt.Fprintf(b, "\n%s\n", DecodeP50.Title())
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	head, level := sweep.LevelColumn(c.Compared)
	fmt.Fprintf(tw, "%s\truns\tA\t%s\t%s/A\t%s\t  verdict\n", head, c.Label, c.Label, ciHead(t.Confidence, c.Label))
	for _, l := range c.Levels {
		e := l.Estimate(DecodeP50)
		fmt.Fprintf(tw, "%s\t%d/%d\t%s\t%s\t%s\t%s\t  %s\n", level(l.Key), e.RA, e.RB, num(e.A, 1), num(e.B, 1),
			num(e.Ratio, 3), interval(e), e.Verdict(c.Label, t.Confidence))
	}
	tw.Flush()
}

// others is the table of TTFT and the aggregate rate.
func (t Table) others(b *strings.Builder, c Comparison) {
	b.WriteString("\nTTFT ms and aggregate output tok/s\n")
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	l := c.Label
	ci := strconv.FormatFloat(100*t.Confidence, 'f', -1, 64) + "% CI"
	head, level := sweep.LevelColumn(c.Compared)
	fmt.Fprintf(tw, "%s\tTTFT p50 A\t%s\t%s/A\t%s\tTTFT p95 A\t%s\t%s/A\t%s\taggregate A\t%s\t%s/A\t%s\t\n",
		head, l, l, ci, l, l, ci, l, l, ci)
	for _, lv := range c.Levels {
		fmt.Fprintf(tw, "%s", level(lv.Key))
		for _, e := range []Estimate{lv.Estimate(TTFTP50), lv.Estimate(TTFTP95), lv.Estimate(AggregateOutput)} {
			fmt.Fprintf(tw, "\t%s\t%s\t%s\t%s", num(e.A, 1), num(e.B, 1), num(e.Ratio, 3), interval(e))
		}
		fmt.Fprint(tw, "\t\n")
	}
	tw.Flush()
}

func ciHead(conf float64, label string) string {
	return strconv.FormatFloat(100*conf, 'f', -1, 64) + "% CI of " + label + "/A"
}

// interval formats the interval of B/A as "0.905–0.930", "-" without one.
func interval(e Estimate) string {
	if !e.HasCI() {
		return "-"
	}
	return num(e.Low, 3) + "–" + num(e.High, 3)
}

// names lists levels in their modes' words (sweep.NameList): "C=1,2,4",
// "rate=2/s, rate=4/s", or "none".
func names(ks []sweep.LevelKey) string { return cmp.Or(sweep.NameList(ks), "none") }

// modesNote says that the runs ran different modes, whose levels never
// pair (a level pairs only with one of its key): "A ran mode closed, B
// ran mode rate; a level pairs only with a level of its own mode"; ""
// when both ran the same modes.
func (c Comparison) modesNote() string {
	a, b := modes(c.Compared, c.OnlyBaseline), modes(c.Compared, c.OnlyRun)
	if slices.Equal(a, b) {
		return ""
	}
	return fmt.Sprintf("A ran mode %s, %s ran mode %s; a level pairs only with a level of its own mode",
		strings.Join(a, " and "), c.Label, strings.Join(b, " and "))
}

// modes are the modes of the keys, by name.
func modes(kss ...[]sweep.LevelKey) []string {
	var ms []string
	for _, ks := range kss {
		for _, k := range ks {
			ms = append(ms, k.Mode)
		}
	}
	slices.Sort(ms)
	return slices.Compact(ms)
}

// num formats v for the console and fixed for the CSV, under report's one
// "no value" rule.
var (
	num   = report.Num
	fixed = report.CSVNum
)

// SharedErr is nil when some run shares a level with the baseline A, else
// the one-line reason why nothing can be compared: per run, the levels only
// in A and only in it, and the modes when they differ.
func (t Table) SharedErr() error {
	var why []string
	for _, c := range t.Comparisons {
		if len(c.Compared) > 0 {
			return nil
		}
		w := fmt.Sprintf("only in A: %s; only in %s: %s", names(c.OnlyBaseline), c.Label, names(c.OnlyRun))
		if note := c.modesNote(); note != "" {
			w += "; " + note
		}
		why = append(why, w)
	}
	base := "A"
	if len(t.Runs) > 0 {
		base = t.Runs[0]
	}
	return fmt.Errorf("the runs share no level with %s: nothing to compare (%s)", base, strings.Join(why, "; "))
}
