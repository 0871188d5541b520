package report

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/toksweep/toksweep/internal/english"
	"github.com/toksweep/toksweep/sweep"
)

// KneeGain is the aggregate-throughput gain below which more load is
// taken to add nothing: the knee is the level that no higher level beats
// by 10% (see knee).
const KneeGain = 0.10

// Recommendation is the capacity answer of a sweep. Each answer is one
// level's key (IsZero: none): its concurrency in a closed loop, its load
// (and cap, as Concurrency) in an open-loop mode.
type Recommendation struct {
	SLO SLO
	// Recommended is the highest level that passes the SLO with every
	// lower level passing too (zero: none passes); RecommendedTPS is its
	// aggregate output tok/s.
	Recommended    sweep.LevelKey
	RecommendedTPS float64
	// FirstFail is the lowest failing level (zero: none fails), and
	// FirstFailWhy its failing criteria.
	FirstFail    sweep.LevelKey
	FirstFailWhy []string
	// Knee is the level beyond which no higher level adds KneeGain
	// aggregate throughput (zero: not reached within the levels run).
	Knee sweep.LevelKey
	// Unjudged is the lowest level that passed the SLO but cannot bear a
	// verdict (see Untrusted): the recommendation stops below it (zero: none).
	Unjudged sweep.LevelKey
	// Excluded lists the levels left out of the knee and the capacity
	// claims, ascending, each with its reasons.
	Excluded           []ExcludedLevel
	RecommendedOffered float64
}

// openLoop reports whether the answers are an open-loop mode's loads.
func (r Recommendation) openLoop() bool {
	return r.Recommended.IsOpen() || r.FirstFail.IsOpen() || r.Knee.IsOpen() || r.Unjudged.IsOpen() ||
		slices.ContainsFunc(r.Excluded, func(e ExcludedLevel) bool { return e.Key.IsOpen() })
}

// ExcludedLevel is a level whose figures cannot bear a verdict.
type ExcludedLevel struct {
	Key sweep.LevelKey
	Why string // Untrusted's reasons, of the first untrusted run
}

// Recommend derives the capacity answer from a sweep's levels (in any
// order; repeats of a level are judged by their pooled worst case: a level
// passes only if every repeat passes). Without an SLO only the knee is set.
// A level that cannot bear a verdict (Untrusted) takes no part in the knee,
// and cannot be recommended: a failure is still a failure, but a pass is
// only claimed from trusted figures, so the recommendation stops below it.
func Recommend(stats []LevelStats, o SLO) Recommendation {
	lv := GroupByKey(stats)
	var trusted []LevelGroup
	rec := Recommendation{SLO: o}
	for _, l := range lv {
		if why := l.untrusted(); why != "" {
			rec.Excluded = append(rec.Excluded, ExcludedLevel{Key: l.Key, Why: why})
			continue
		}
		trusted = append(trusted, l)
	}
	if k, ok := knee(trusted); ok {
		rec.Knee = k.Key
	}
	if !o.Set() {
		return rec
	}
	for _, l := range lv {
		if why := l.failures(o); len(why) > 0 {
			rec.FirstFail, rec.FirstFailWhy = l.Key, why
			break
		}
		if l.untrusted() != "" {
			rec.Unjudged = l.Key
			break
		}
		rec.Recommended, rec.RecommendedTPS = l.Key, l.Aggregate
		rec.RecommendedOffered = l.offered()
	}
	return rec
}

// offered is the mean offered rate of the group's runs (OfferedRPS, as
// their plans offered it); 0 when a run has none (a closed loop).
func (g LevelGroup) offered() float64 {
	var sum float64
	for _, s := range g.Runs {
		if !(s.OfferedRPS > 0) {
			return 0
		}
		sum += s.OfferedRPS
	}
	return sum / float64(len(g.Runs))
}

// loadText names open-loop level k in its mode's words (sweep.Words.Load),
// with the offered rate its runs realised among stats and note: "16
// req/s", a replay's "speed 2× (offered 24.3 req/s)".
func loadText(stats []LevelStats, k sweep.LevelKey, note string) string {
	var offered float64
	for _, g := range GroupByKey(stats) {
		if g.Key == k {
			offered = g.offered()
		}
	}
	return loadWords(k, offered, note)
}

// loadWords is k's Words.Load; At for a mode without one (no open level).
func loadWords(k sweep.LevelKey, offered float64, note string) string {
	if w := k.Words(); w.Load != nil {
		return w.Load(k, offered, note)
	}
	return k.At()
}

// highest is the key of the open-loop level of stats with the highest
// load, and its mode's words.
func highest(stats []LevelStats) (sweep.LevelKey, sweep.Words) {
	var top sweep.LevelKey
	for _, s := range stats {
		if k := s.Key(); k.IsOpen() && (top.IsZero() || k.Load > top.Load) {
			top = k
		}
	}
	return top, top.Words()
}

// untrusted is Untrusted of the level's first run that cannot bear a
// verdict, or "".
func (g LevelGroup) untrusted() string {
	for _, s := range g.Runs {
		if why := Untrusted(s); why != "" {
			return why
		}
	}
	return ""
}

// LevelGroup is every run (repeat) of one level, the level named by its
// key alone.
type LevelGroup struct {
	Key       sweep.LevelKey
	Runs      []LevelStats
	Aggregate float64 // mean aggregate output tok/s over the runs
}

// X is the group's place on the sweep's axis: the rate of an open-loop
// level, else C. The knee's doubling is a doubling of X.
func (g LevelGroup) X() float64 { return g.Key.X() }

// Name is the group's level name, "C=4" or "rate=2/s".
func (g LevelGroup) Name() string { return g.Key.Name() }

// Passes reports whether every run of the level passes o.
func (g LevelGroup) Passes(o SLO) bool { return len(g.failures(o)) == 0 }

func (g LevelGroup) failures(o SLO) []string {
	for _, s := range g.Runs {
		if r := CheckSLO(s, o); !r.Pass {
			return r.Failed
		}
	}
	return nil
}

// GroupByKey groups a sweep's levels by level key, in the keys' order
// (LevelKey.Compare), each with its runs in the order given.
func GroupByKey(stats []LevelStats) []LevelGroup {
	var groups []LevelGroup
	for _, s := range stats {
		k := s.Key()
		i := slices.IndexFunc(groups, func(g LevelGroup) bool { return g.Key == k })
		if i < 0 {
			groups = append(groups, LevelGroup{Key: k})
			i = len(groups) - 1
		}
		groups[i].Runs = append(groups[i].Runs, s)
	}
	for i := range groups {
		var sum float64
		for _, s := range groups[i].Runs {
			sum += s.AggregateOutputTPS
		}
		groups[i].Aggregate = sum / float64(len(groups[i].Runs))
	}
	slices.SortFunc(groups, func(a, b LevelGroup) int { return a.Key.Compare(b.Key) })
	return groups
}

// Sentence is the recommendation as one paragraph for the console: the
// verdict, and at the recommended level and at the knee what one user gets
// there (levelFigures) and what the server delivers in aggregate.
func (r Recommendation) Sentence(stats []LevelStats) string {
	if r.openLoop() || anyRate(stats) {
		return r.rateSentence(stats)
	}
	var b strings.Builder
	if r.SLO.Set() {
		switch {
		case r.Recommended.IsZero() && r.FirstFail.IsZero():
			fmt.Fprintf(&b, "No level can be judged against the SLO (%s): C=%d cannot bear a verdict.", r.SLO, r.Unjudged.Concurrency)
		case r.Recommended.IsZero():
			fmt.Fprintf(&b, "No level meets the SLO (%s): at %s %s.", r.SLO, users(r.FirstFail), strings.Join(r.FirstFailWhy, "; "))
		default:
			fmt.Fprintf(&b, "This server serves %s with %s: there %s.", users(r.Recommended), r.SLO, levelFigures(stats, r.Recommended.Concurrency))
			switch {
			case !r.FirstFail.IsZero():
				fmt.Fprintf(&b, " At %s the SLO fails: %s.", users(r.FirstFail), strings.Join(r.FirstFailWhy, "; "))
			case !r.Unjudged.IsZero():
				fmt.Fprintf(&b, " C=%d cannot bear a verdict, so the limit above %d is not known.", r.Unjudged.Concurrency, r.Recommended.Concurrency)
			default:
				fmt.Fprintf(&b, " Every level run passes; the limit is above %d.", maxLevel(stats))
			}
		}
		b.WriteString(" ")
	}
	trusted := r.trustedStats(stats)
	switch {
	case !r.Knee.IsZero() && r.Knee == r.Recommended:
		fmt.Fprintf(&b, "Aggregate throughput saturates beyond %s (doubling adds < %.0f%%), the recommended level.", requests(r.Knee), KneeGain*100)
	case !r.Knee.IsZero():
		fmt.Fprintf(&b, "Aggregate throughput saturates beyond %s (doubling adds < %.0f%%): there %s.", requests(r.Knee), KneeGain*100, levelFigures(stats, r.Knee.Concurrency))
	case len(GroupByKey(trusted)) == 1:
		b.WriteString("One level cannot show a knee (run levels a doubling apart, e.g. --levels 1,2,4,8, to find one)")
		r.figuresAt(&b, stats, trusted[0].Concurrency, "; at %s %s.")
	case !anyDoubling(trusted):
		b.WriteString("No two levels a doubling apart delivered throughput, so no knee can be found.")
	default:
		c := maxLevel(trusted)
		fmt.Fprintf(&b, "Aggregate throughput was still growing at %s (no knee within the levels run)", requests(levelAt(trusted, c)))
		r.figuresAt(&b, stats, c, ": there %[2]s.")
	}
	if len(r.Excluded) > 0 {
		var ex []string
		for _, e := range r.Excluded {
			ex = append(ex, fmt.Sprintf("%s (%s)", e.Key.Name(), e.Why))
		}
		fmt.Fprintf(&b, " Left out of the knee and the recommendation: %s.", strings.Join(ex, ", "))
	}
	b.WriteString(limitedText(stats))
	return b.String()
}

// figuresAt ends a knee sentence with levelFigures at c through format
// (%[1]s: "N concurrent requests", %[2]s: the figures), or with a full stop
// when c is the recommended level, whose figures the paragraph gave.
func (r Recommendation) figuresAt(b *strings.Builder, stats []LevelStats, c int, format string) {
	if c == r.Recommended.Concurrency {
		b.WriteString(".")
		return
	}
	fmt.Fprintf(b, format, requests(levelAt(stats, c)), levelFigures(stats, c))
}

// levelFigures says what one user gets at concurrency c and what the
// server delivers there: decode and e2e tok/s (p50), TTFT p95 and the
// aggregate output tok/s, each the mean over the level's repeats.
func levelFigures(stats []LevelStats, c int) string {
	var runs []LevelStats
	for _, s := range stats {
		if s.Concurrency == c {
			runs = append(runs, s)
		}
	}
	if len(runs) == 0 {
		return "no figures were measured"
	}
	m := meanFigures(runs)
	return fmt.Sprintf("each user gets %s tok/s decode and %s tok/s end to end (p50) with a TTFT p95 of %s, and the server delivers %s output tok/s in aggregate",
		Num(m.DecodeP50, 1), Num(m.E2EP50, 1), msText(m.TTFTP95Ms), Num(m.Aggregate, 0))
}

// userFigures is what one user gets at a level and what the server
// delivers there, each the mean over the level's runs (meanFigures).
type userFigures struct {
	DecodeP50, DecodeP10, E2EP50 float64 // tok/s
	TTFTP95Ms                    float64
	Aggregate                    float64 // aggregate output tok/s
}

// meanFigures is the mean of runs' figures (NaN if one run has none, as
// a TTFT p95 without a sample); runs must not be empty.
func meanFigures(runs []LevelStats) userFigures {
	var m userFigures
	for _, s := range runs {
		m.DecodeP50 += s.DecodeTPSP50
		m.DecodeP10 += s.DecodeTPSP10
		m.E2EP50 += s.E2ETPSP50
		m.TTFTP95Ms += Ms(s.TTFTP95)
		m.Aggregate += s.AggregateOutputTPS
	}
	k := float64(len(runs))
	return userFigures{DecodeP50: m.DecodeP50 / k, DecodeP10: m.DecodeP10 / k, E2EP50: m.E2EP50 / k, TTFTP95Ms: m.TTFTP95Ms / k, Aggregate: m.Aggregate / k}
}

// msText is a duration in milliseconds for a sentence: "420 ms", "1.25 s".
func msText(ms float64) string {
	if defined(ms) && ms >= 1000 {
		return Num(ms/1000, 2) + " s"
	}
	return Num(ms, 0) + " ms"
}

// users counts a closed-loop level's users in its mode's words (Words.
// Running): "1 concurrent user", "4 concurrent sessions".
func users(k sweep.LevelKey) string {
	return english.Plural(k.Concurrency, cmp.Or(k.Words().Running, "concurrent user"))
}

// requests counts what a closed-loop level holds in flight, for the knee
// sentences, in its mode's words: "4 concurrent requests", "4 concurrent
// sessions".
func requests(k sweep.LevelKey) string {
	return english.Plural(k.Concurrency, cmp.Or(k.Words().Running, "concurrent request"))
}

// levelAt is the key of stats' level at concurrency c (a closed-loop
// mode's); a closed-loop key at c when none is there.
func levelAt(stats []LevelStats, c int) sweep.LevelKey {
	for _, s := range stats {
		if s.Concurrency == c {
			return s.Key()
		}
	}
	return sweep.LevelKey{Mode: sweep.ClosedMode, Concurrency: c}
}

// trustedStats is stats without the levels r excluded.
func (r Recommendation) trustedStats(stats []LevelStats) []LevelStats {
	var out []LevelStats
	for _, s := range stats {
		if !slices.ContainsFunc(r.Excluded, func(e ExcludedLevel) bool { return e.Key == s.Key() }) {
			out = append(out, s)
		}
	}
	return out
}

// limitedText is the closing paragraph's caution naming the levels of
// stats a repeat of which was client-limited (ClientLimitedCaution): "
// Caution: C=2,4 may have been client-limited; their figures …", "
// Caution: rate=16/s was client-limited; its figures …"; "" when none was.
func limitedText(stats []LevelStats) string {
	var ks []sweep.LevelKey
	for _, g := range GroupByKey(stats) {
		if slices.ContainsFunc(g.Runs, func(s LevelStats) bool { return s.ClientLimited }) {
			ks = append(ks, g.Key)
		}
	}
	if len(ks) == 0 {
		return ""
	}
	return " Caution: " + ClientLimitedCaution(ks) + "."
}

// ClientLimitedCaution is the caution about levels ks flagged
// client-limited, in their mode's words (sweep.NameList, and the first
// key's verb, sweep.Words.Limited): "C=2,4 may have been client-limited;
// their figures may describe the load generator, not the server",
// "rate=16/s was client-limited; its figures …". The closing paragraph
// and plan word it so.
func ClientLimitedCaution(ks []sweep.LevelKey) string {
	their := "their"
	if len(ks) == 1 {
		their = "its"
	}
	return fmt.Sprintf("%s %s client-limited; %s figures may describe the load generator, not the server",
		sweep.NameList(ks), ks[0].Words().Limited(len(ks)), their)
}

func maxLevel(stats []LevelStats) int {
	m := 0
	for _, s := range stats {
		m = max(m, s.Concurrency)
	}
	return m
}

// anyDoubling reports whether some level delivered output and a level at
// least twice its concurrency was run too: only then can a knee be judged.
func anyDoubling(stats []LevelStats) bool {
	lv := GroupByKey(stats)
	for i, l := range lv {
		if !(l.Aggregate > 0) {
			continue
		}
		if slices.ContainsFunc(lv[i+1:], func(g LevelGroup) bool { return g.X() >= 2*l.X() }) {
			return true
		}
	}
	return false
}

// rateSentence is Sentence for an open-loop sweep: the answers are the
// levels' loads, in their mode's words (loadText): offered rates, or a
// replay's speeds with their offered rates.
func (r Recommendation) rateSentence(stats []LevelStats) string {
	top, w := highest(stats)
	load := func(k sweep.LevelKey) string { return loadText(stats, k, "") }
	var b strings.Builder
	if r.SLO.Set() {
		switch {
		case r.Recommended.IsZero() && r.FirstFail.IsZero():
			fmt.Fprintf(&b, "No %s can be judged against the SLO (%s): %s cannot bear a verdict.", w.Level, r.SLO, load(r.Unjudged))
		case r.Recommended.IsZero():
			fmt.Fprintf(&b, "No %s meets the SLO (%s): at %s %s.", w.Level, r.SLO, load(r.FirstFail), strings.Join(r.FirstFailWhy, "; "))
		default:
			fmt.Fprintf(&b, "This server sustains %s with %s, delivering %.0f output tok/s in aggregate.", loadWords(r.Recommended, r.RecommendedOffered, "open loop"), r.SLO, r.RecommendedTPS)
			switch {
			case !r.FirstFail.IsZero():
				fmt.Fprintf(&b, " At %s the SLO fails: %s.", load(r.FirstFail), strings.Join(r.FirstFailWhy, "; "))
			case !r.Unjudged.IsZero():
				fmt.Fprintf(&b, " %s cannot bear a verdict, so the limit above %s is not known.", load(r.Unjudged), load(r.Recommended))
			default:
				fmt.Fprintf(&b, " Every %s run passes; the limit is above %s.", w.Level, load(top))
			}
		}
		b.WriteString(" ")
	}
	switch {
	case !r.Knee.IsZero():
		fmt.Fprintf(&b, "Aggregate throughput saturates beyond %s: doubling it adds < %.0f%%.", load(r.Knee), KneeGain*100)
	case !anyDoubling(r.trustedStats(stats)):
		fmt.Fprintf(&b, "No two %s a doubling apart delivered throughput, so there is no knee to find.", w.Levels)
	default:
		trusted, _ := highest(r.trustedStats(stats))
		fmt.Fprintf(&b, "Aggregate throughput was still growing at %s (no knee within the %s run).", load(trusted), w.Levels)
	}
	b.WriteString(stableText(stats))
	if len(r.Excluded) > 0 {
		var ex []string
		for _, e := range r.Excluded {
			ex = append(ex, fmt.Sprintf("%s (%s)", e.Key.Name(), e.Why))
		}
		fmt.Fprintf(&b, " Left out of the knee and the recommendation: %s.", strings.Join(ex, ", "))
	}
	b.WriteString(limitedText(stats))
	return b.String()
}

// stableText states the open loop's capacity evidence: the highest level
// whose runs were all stable, and the most the server completed at a level
// it could not keep up with (its maximum throughput).
func stableText(stats []LevelStats) string {
	var stable sweep.LevelKey
	var ceiling float64
	for _, g := range GroupByKey(stats) {
		if !g.Key.IsOpen() {
			continue
		}
		if !slices.ContainsFunc(g.Runs, func(s LevelStats) bool { return s.Unstable }) {
			if stable.IsZero() || g.Key.Load > stable.Load {
				stable = g.Key
			}
			continue
		}
		for _, s := range g.Runs {
			if s.Unstable && defined(s.AchievedRPS) {
				ceiling = max(ceiling, s.AchievedRPS)
			}
		}
	}
	var b strings.Builder
	if !stable.IsZero() {
		fmt.Fprintf(&b, " The highest stable level was %s.", loadText(stats, stable, ""))
	}
	if ceiling > 0 {
		fmt.Fprintf(&b, " Above it the server completed at most %.3g req/s: its maximum throughput.", ceiling)
	}
	return b.String()
}
