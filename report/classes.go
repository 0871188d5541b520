package report

import (
	"cmp"
	"fmt"
	"iter"
	"strings"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/sweep"
)

// ClassSLO is one traffic class's SLO (sweep --class …,slo=…, else the
// run's --slo-* bounds).
type ClassSLO struct {
	Name string
	SLO  SLO
}

// classColumn is the class of a per-class row (LevelStats.Class): in
// levels.csv, where the run has classes (Settings.Columns), the empty
// cell on the level's total row; in the lead of every per-level table,
// "all" on the total row.
var classColumn = Column{Name: "class", Def: "the traffic class of the row (`--class`); empty on the level's total row; only in a run with classes",
	Table: LeadTable, Head: "class", Left: true, Show: anyClass,
	Value: func(s *LevelStats) Value { return text(s.Class) },
	Text:  func(s *LevelStats) string { return cmp.Or(s.Class, "all") }}

// anyClass shows the class column when a row is a class's.
func anyClass(stats []LevelStats) bool {
	for _, s := range stats {
		if s.Class != "" {
			return true
		}
	}
	return false
}

// summarizeClasses is the figures of each of the classes' requests in l,
// in the classes' order, each summarised as a level of its own (so every
// figure of a class row is the level's figure over the class's requests
// alone; the server's and the GPUs' are the whole level's and are left
// out), its aggregate figures (tok/s, req/s, in-flight) over the level's
// steady-state window, so that the rows add up to the level's; nil
// without classes.
func summarizeClasses(l sweep.Level, set Settings, level *LevelStats) []LevelStats {
	if len(set.Classes) == 0 {
		return nil
	}
	sub := set
	sub.Classes, sub.level = nil, level
	out := make([]LevelStats, 0, len(set.Classes))
	for _, name := range set.Classes {
		cl := sweep.Level{Mode: l.Mode, Concurrency: l.Concurrency, Rate: l.Rate, Repeat: l.Repeat, EndReason: l.EndReason,
			Start: l.Start, End: l.End, Health: l.Health, Source: classRecords(l, name)}
		s := Summarize(cl, sub)
		s.Class = name
		out = append(out, s)
	}
	return out
}

// classRecords yields l's records of class name.
func classRecords(l sweep.Level, name string) iter.Seq[*client.Record] {
	return func(yield func(*client.Record) bool) {
		for r := range l.All() {
			if r.Class == name && !yield(r) {
				return
			}
		}
	}
}

// withClasses is stats with each level's class rows after it, as the
// tables show them.
func withClasses(stats []LevelStats) []LevelStats {
	if !hasClasses(stats) {
		return stats
	}
	var out []LevelStats
	for _, s := range stats {
		out = append(out, s)
		out = append(out, s.Classes...)
	}
	return out
}

// hasClasses reports whether a level has class rows.
func hasClasses(stats []LevelStats) bool {
	for _, s := range stats {
		if len(s.Classes) > 0 {
			return true
		}
	}
	return false
}

// Judge sets s's SLO verdict against o, and each class row's against its
// class's SLO.
func Judge(s *LevelStats, o SLO) {
	v := CheckSLO(*s, o)
	s.SLO = &v
	for i := range s.Classes {
		if c, ok := o.class(s.Classes[i].Class); ok && c.Set() {
			cv := CheckSLO(s.Classes[i], c)
			s.Classes[i].SLO = &cv
		}
	}
}

// class is class name's SLO under o.
func (o SLO) class(name string) (SLO, bool) {
	for _, c := range o.Classes {
		if c.Name == name {
			return c.SLO, true
		}
	}
	return SLO{}, false
}

// classFailures judges each class of o on its row of s: the failing
// criteria, each "class NAME: …"; a class the level has no row of fails
// (it sent nothing to judge).
func classFailures(s LevelStats, o SLO) []string {
	var failed []string
	for _, c := range o.Classes {
		if !c.SLO.Set() {
			continue
		}
		i := -1
		for j := range s.Classes {
			if s.Classes[j].Class == c.Name {
				i = j
			}
		}
		if i < 0 {
			failed = append(failed, fmt.Sprintf("class %s: no request", c.Name))
			continue
		}
		for _, f := range CheckSLO(s.Classes[i], c.SLO).Failed {
			failed = append(failed, "class "+c.Name+": "+f)
		}
	}
	return failed
}

// classesText is the classes' SLOs in words, "; class NAME: BOUNDS" each.
func (o SLO) classesText() string {
	var b strings.Builder
	for _, c := range o.Classes {
		if c.SLO.Set() {
			fmt.Fprintf(&b, "; class %s: %s", c.Name, c.SLO)
		}
	}
	return b.String()
}

// ClassLines are a level's class rows in brief, a line each, for the
// console as the level ends: "\n  class NAME: 15 ok, 0 failed, TTFT p95
// 14.9 ms, decode p10 274.3 tok/s, SLO pass"; "" without classes.
func ClassLines(s LevelStats) string {
	var b strings.Builder
	for _, c := range s.Classes {
		fmt.Fprintf(&b, "\n  class %s: %d ok, %d failed, TTFT p95 %s ms, decode p10 %s tok/s", c.Class, c.RequestsOK, c.RequestsFailed,
			Num(Ms(c.TTFTP95), 1), Num(c.DecodeTPSP10, 1))
		if c.SLO != nil {
			b.WriteString(", SLO " + sloText(c.SLO))
		}
	}
	return b.String()
}
