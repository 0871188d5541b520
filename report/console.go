package report

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// WriteConsole writes the human summary of a sweep: the single-stream and
// aggregate LevelTables, one row per level, the repeat spread, and the
// Footnotes for
// client-limited levels, levels without a steady state and token counting
// caveats. It is the only console output of figures.
func WriteConsole(w io.Writer, stats []LevelStats) error {
	var b strings.Builder
	for i, lt := range LevelTables(stats) {
		if lt.Table == ServerTable {
			continue // on stderr as each level ends, and in report.html
		}
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(lt.Title + "\n")
		if err := textTable(lt).write(&b); err != nil {
			return err
		}
	}
	if spread := spreadTable(stats); spread != nil {
		b.WriteString("\n" + spreadTitle + "\n")
		if err := spread.write(&b); err != nil {
			return err
		}
	}
	for _, note := range slices.Concat(SessionNotes(stats), Footnotes(stats)) {
		b.WriteString(note + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// textTable lays lt out for the console.
func textTable(lt LevelTable) *table {
	t := &table{}
	for _, g := range lt.Groups {
		t.groups = append(t.groups, group{g.Title, g.Span})
	}
	for _, c := range lt.Cols {
		t.cols = append(t.cols, col{head: c.Head, left: c.Left})
	}
	for _, r := range lt.Rows {
		row := make([]string, len(r))
		for i, c := range r {
			row[i] = c.Text
		}
		t.rows = append(t.rows, row)
	}
	return t
}

// sloText is a level's SLO verdict in the aggregate table.
func sloText(r *SLOResult) string {
	switch {
	case r == nil:
		return "-"
	case r.Pass:
		return "pass"
	default:
		return "FAIL: " + strings.Join(r.Failed, "; ")
	}
}

func markers(s LevelStats) string {
	m := ""
	if s.ClientLimited {
		m += "!"
	}
	if s.WindowFallback {
		m += "*"
	}
	return m
}

// Footnotes explain the aggregate table's markers (! client-limited,
// * no steady state) and warn about token counting; the console and
// report.html print them under the tables.
func Footnotes(stats []LevelStats) []string {
	var notes []string
	for _, s := range stats {
		if s.ClientLimited {
			notes = append(notes, "! "+ClientLimitedNote(s))
		}
		if s.WindowFallback {
			notes = append(notes, fmt.Sprintf("* %s: no steady state (not every worker finished a request, or they were never all in flight together): aggregate figures span the whole level",
				LevelName(s)))
		}
	}
	notes = append(notes, verdictNotes(stats)...)
	for _, s := range stats {
		if s.TokenCountMismatch > 0 {
			notes = append(notes, fmt.Sprintf("note: %s: %d of %d successful requests' usage differs from their chunk count by more than %.0f%% (multi-token chunks or lost chunks); per-token figures spread usage evenly over chunks",
				LevelName(s), s.TokenCountMismatch, s.RequestsOK, 100*MismatchTolerance))
		}
		if s.TokenSource == TokensMixed {
			notes = append(notes, fmt.Sprintf("note: %s: only some responses carried usage; the others are counted one token per chunk",
				LevelName(s)))
		}
	}
	return notes
}

// verdictNotes warns about levels whose figures rest on little: no request
// finished, a high error share or a sliver of a window (left out of the
// verdicts), a short window, few samples behind the percentiles.
func verdictNotes(stats []LevelStats) []string {
	var notes []string
	for _, s := range stats {
		name := LevelName(s)
		if why := Untrusted(s); why != "" {
			notes = append(notes, fmt.Sprintf("warning: %s: %s: left out of the knee and the recommendation", name, why))
		} else if w := s.Window(); w > 0 && w < ShortWindow {
			notes = append(notes, fmt.Sprintf("note: %s: the steady window is %.3gs (< %s): its aggregate is noisy; more requests per level steady it", name, w.Seconds(), ShortWindow))
		}
		if s.RequestsOK > 0 && s.RequestsOK < FewSamples {
			notes = append(notes, fmt.Sprintf("note: %s: percentiles rest on %d successful requests (< %d)", name, s.RequestsOK, FewSamples))
		}
	}
	return notes
}

// LevelName names a level in notes and status lines: "C=8", "C=8 rep 1",
// or for an open-loop level "rate=4/s" (with its cap, "rate=4/s C≤2").
func LevelName(s LevelStats) string {
	name := s.Key().Name()
	if s.Repeat != 0 {
		name += fmt.Sprintf(" rep %d", s.Repeat+1) // runs count from 1 for people
	}
	return name
}
