// Package progress owns the sweep's progress on stderr (Line): on a
// terminal one live line, redrawn every Every (level, requests done of
// planned, tokens streamed and their rate, errors, the time left for the
// level and the sweep); elsewhere one plain line per finished level and the
// re-estimated time left, never a carriage return. It is the sweep's
// Observer; the estimates are the chosen mode's (mode.Timing), re-estimated
// from each level's measured time per request. IsTerminal says which of
// the two a writer gets.
package progress
